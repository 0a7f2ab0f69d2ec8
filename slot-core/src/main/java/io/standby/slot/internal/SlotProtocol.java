package io.standby.slot.internal;

import io.standby.slot.ClaimCounts;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeState;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of the slot protocol for one node, without threads of its own: {@link #poll()}, {@link #renewAll()},
 * {@link #checkFences()} and {@link #releaseAll()} are steps that {@link io.standby.slot.SlotNode} schedules and that
 * tests call directly with a hand-driven clock.
 *
 * <p>It assembles the parts, each with one job: {@link SlotReads} reads the slots (and the registry before them when a
 * plan is likely); {@link LeaseBook} holds the leases and renews, pauses, fences and releases them; {@link OwnIdentity}
 * takes back the slots held under this node's own identity; {@link FastFailover} takes over slots from owners found
 * gone, and watches this node's own address; {@link ClaimRound} claims the expired slots in the plan's order;
 * {@link Drain} hands the slots over when an operator asks.
 *
 * <p>{@link #poll()} runs on one thread at a time; the other steps may run concurrently with it and with each other.
 */
public final class SlotProtocol {

    private static final Logger log = LoggerFactory.getLogger(SlotProtocol.class);

    /**
     * Heartbeats between registry writes when nothing changed. Ten keeps an owner at the defaults under 1.6 commands a
     * second (a poll a second, a renewal every 2 s, this write every 20 s, the robots' re-read every 30 s). A drain
     * request reaches an owner sooner, on its slots (see {@link Drain#notice}); only a node that holds no slot waits
     * for this write, up to 20 s, to see one.
     */
    static final int REGISTRY_WRITE_HEARTBEATS = 10;

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final Sleeper sleeper;
    private final Membership membership;
    private final boolean withMembership;
    private final Outage outage = new Outage();
    private final LeaseBook book;
    private final SlotReads reads;
    private final OwnIdentity identity;
    private final ClaimRound claims;
    private final FastFailover fastFailover;
    private final WatchTakeover watchTakeover;
    private final Drain drain;
    private boolean settled;

    public SlotProtocol(ProtocolSetup setup) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.sleeper = setup.sleeper();
        this.membership = new Membership(
                setup.registry(),
                config,
                setup.workload(),
                setup.gauge(),
                clock,
                config.timing().heartbeat().multipliedBy(REGISTRY_WRITE_HEARTBEATS),
                Membership.version());
        this.withMembership = setup.hasMembership();
        this.book = new LeaseBook(setup, outage);
        this.reads = new SlotReads(setup, membership, book, outage);
        this.identity = new OwnIdentity(setup, book, outage);
        this.claims = new ClaimRound(setup, membership, book, reads, identity, outage);
        this.fastFailover = new FastFailover(setup, book, reads, claims);
        this.watchTakeover = new WatchTakeover(setup, book, reads, claims);
        this.drain = new Drain(setup, membership, book, reads, () -> {
            claims.stop();
            membership.report(state(), book.heldSlotIds());
        });
    }

    /**
     * When this node last read the slots successfully, on its own clock ({@link MonotonicClock#nanoTime()}), or empty
     * before its first read: how its readiness is judged. From any thread.
     */
    public OptionalLong lastRead() {
        return reads.lastRead();
    }

    /** Claims won, lost to another node, and failed (no answer), since the node started; from any thread. */
    public ClaimCounts claims() {
        return claims.counts();
    }

    /**
     * The entries of the protocol's maps keyed by slots, owners and peers, which come and go: what a soak watches for
     * growth. From any thread; a size may be a poll stale.
     */
    public Map<String, Integer> remembered() {
        Map<String, Integer> sizes = new TreeMap<>();
        sizes.put("leases", book.size());
        sizes.put("claimable_slots", claims.remembered());
        sizes.put("gone_owners", fastFailover.remembered());
        reads.remembered(sizes);
        watchTakeover.remembered(sizes);
        return sizes;
    }

    public NodeConfig config() {
        return config;
    }

    /** The leases this node holds and that have not ended, by slot id. */
    public List<Lease> leases() {
        return book.leases();
    }

    /**
     * Joins the cluster before the first poll: refuses to go on if this node's ip:port holds a live lease of a process
     * it cannot take back from (on another host, or on this host without the proof of a bound address), then registers
     * this node and lets nodes starting with it register too (see {@link #settle()}). Two nodes that share one identity
     * would not fight, since neither takes the other's slots back without waiting, but the second would stand by for
     * the first's slots for as long as it lives, and every log, table and take-back that names a node by its address
     * would be ambiguous; the check comes first so that a refused node writes nothing. If the slots cannot be read, the
     * check is skipped.
     *
     * @throws IllegalStateException naming the address and the instance that holds the lease
     * @throws InterruptedException if the thread is interrupted while it lets the registry settle
     */
    public void join() throws InterruptedException {
        try {
            store.ensureIndexes();
        } catch (RuntimeException e) {
            log.warn(
                    "Could not create the slots' indexes (polls still work, each a scan of the slots): {}",
                    e.toString());
        }
        List<SlotView> held;
        try {
            held = store.readHeldBy(config.node());
        } catch (RuntimeException e) {
            outage.failed("Cannot read slots", e);
            held = null;
        }
        if (held != null) {
            identity.refuseLiveTwin(held);
        }
        settle();
    }

    /**
     * Once, before this node's first claims: it writes itself into the registry and waits a short time (half a poll, at
     * most 250 ms) so that nodes starting together all see each other when they plan.
     */
    private void settle() throws InterruptedException {
        if (settled) {
            return;
        }
        settled = true;
        if (withMembership) {
            reads.expectClaims();
            membership.report(state(), book.heldSlotIds());
            Duration half = config.timing().poll().dividedBy(2);
            sleeper.sleep(half.compareTo(Duration.ofMillis(250)) < 0 ? half : Duration.ofMillis(250));
        }
    }

    /**
     * Reads every slot, takes back the slots still held under this node's identity, writes this node's registry
     * document if due, then claims while there is room: first the slots of owners found gone (with fast failover), then
     * the expired ones as {@link ClaimRound} orders them. A draining node claims nothing and hands one slot over
     * instead. Returns the number of slots won.
     *
     * @throws InterruptedException if the thread is interrupted while it lets the registry settle
     */
    public int poll() throws InterruptedException {
        // First, so that the claims of a storm do not wait behind the registry writes of its winners: the
        // registry shows each poll's outcome one poll later. Writes only when due or changed.
        if (membership.report(state(), book.heldSlotIds()) && !drain.draining()) {
            drain.start();
        }
        settle();
        List<SlotView> slots = reads.read(claims.hasRoom());
        if (slots == null) {
            return 0;
        }
        book.observe(slots);
        drain.notice(slots);
        if (drain.draining()) {
            drain.step(slots);
            return 0;
        }
        int won = identity.takeBack(slots, claims::hasRoom);
        watchTakeover.watch();
        if (claims.hasRoom()) {
            won += watchTakeover.take();
        }
        if (claims.hasRoom()) {
            won += fastFailover.takeFromGone(slots);
        }
        return won + claims.claimExpired(slots);
    }

    /**
     * Takes the slots of owners whose watch link died and whose wait is over, between polls (see
     * {@link #nextWatchedTakeover()}). On the poll thread. Returns the number won.
     */
    public int takeWatched() throws InterruptedException {
        if (drain.draining()) {
            return 0;
        }
        return watchTakeover.take();
    }

    /** How long until a dead watch link's wait ends, on this node's clock: when to call {@link #takeWatched()}. */
    public OptionalLong nextWatchedTakeover() {
        return watchTakeover.nextTake();
    }

    /** Whether this node drains: it claims nothing and hands its slots over, one a poll. */
    public boolean draining() {
        return drain.draining();
    }

    /** Whether a drain has handed every slot over: the node may stop. */
    public boolean drained() {
        return drain.drained();
    }

    /**
     * What this node does now: drains, owns slots, or stands by. A node that lost its identity says it drains: it
     * claims nothing more, and draining is what plans leave out (see {@link NodeRegistry#readLive()}). From any thread.
     */
    public NodeState state() {
        if (drain.draining() || fastFailover.identityLost()) {
            return NodeState.DRAINING;
        }
        return book.size() == 0 ? NodeState.STANDBY : NodeState.OWNER;
    }

    /**
     * Whether this node, by what it has itself observed, could take {@code slot} (as read now) at its next poll by any
     * path: taken back at once from an earlier process of its own identity proven gone, the lease expired by the
     * server's clock and waited out on this node's clock, or, with fast failover, the owner late by its own mark and
     * watched that long, whatever a probe answers (a refusal can be false). Room, claiming and the claim plan are left
     * aside. The same predicates as the claims use, for the simulation's invariant that no node can take a slot whose
     * owner's robots still run.
     */
    public boolean mayTake(SlotView slot) {
        long now = clock.nanoTime();
        if (book.holds(slot.id())) {
            return false;
        }
        return identity.takenBackAtOnce(slot)
                || reads.expiredFor(slot, now).isPresent()
                || fastFailover.mayTakeEarly(slot, now)
                || watchTakeover.mayTake(slot);
    }

    /**
     * Renews every lease this node holds, in one command ({@link SlotStore#renewAll}); a lease whose slot the renewal
     * did not match ends at once.
     */
    public void renewAll() {
        book.renewAll();
    }

    /**
     * Ends every lease whose local deadline has passed: no renewal succeeded for {@code lease - fenceMargin} since the
     * last successful one was sent; pauses, with fast failover, the robots of a lease past its late point. Uses only
     * this node's monotonic clock, so it works while the database is unreachable.
     */
    public void checkFences() {
        book.checkFences();
    }

    /**
     * With fast failover, whether this node's own address still accepts connects; if it refuses, every lease is fenced
     * at once and nothing more is claimed (see {@link FastFailover#checkIdentity()}). Returns the reason once the
     * identity is lost, else empty. From the fence thread.
     */
    public Optional<String> checkIdentity() {
        return fastFailover.checkIdentity();
    }

    /** Removes this node from the registry, and its owner document: the end of a graceful stop. */
    public void leave() {
        watchTakeover.close();
        membership.leave();
        try {
            store.removeOwner(OwnerDocRules.ownerId(config.node(), config.instance()));
        } catch (RuntimeException e) {
            // Other nodes remove it once it has stood still for long (SlotReads.SWEEP_AFTER).
            log.debug("Could not remove this node's owner document: {}", e.toString());
        }
    }

    /** Stops claiming; every later poll only reads. */
    public void stopClaiming() {
        claims.stop();
    }

    /**
     * Graceful stop: stops claiming, lets the listener stop each slot's work while renewals go on, then releases each
     * slot (owner cleared, epoch kept, time set to 1970) so that a standby takes it at its next poll. Slots are
     * released in parallel (see {@link Fanout}).
     */
    public void releaseAll() {
        stopClaiming();
        // Out of the plans first: the registry still counts this node as live, and once its slots are
        // free it has room, so a standby whose plan ranks it first would wait a head start for it.
        book.releaseAll(() -> membership.report(NodeState.DRAINING, book.heldSlotIds()));
    }
}
