package io.standby.slot.internal;

import io.standby.slot.ClaimCounts;
import io.standby.slot.ClaimOutcome;
import io.standby.slot.Durations;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import io.standby.slot.Takeover;
import io.standby.slot.Workload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The decisions of the slot protocol for one node, without threads of its own: {@link #poll()},
 * {@link #renewAll()}, {@link #checkFences()} and {@link #releaseAll()} are steps that
 * {@link io.standby.slot.SlotNode} schedules and that tests call directly with a hand-driven clock.
 *
 * <p>{@link #poll()} runs on one thread at a time; the other steps may run concurrently with it and
 * with each other.
 */
public final class SlotProtocol {

    private static final Logger log = LoggerFactory.getLogger(SlotProtocol.class);
    /**
     * Heartbeats between registry writes when nothing changed. Ten keeps an owner at the defaults under
     * 1.6 commands a second (a poll a second, a renewal every 2 s, this write every 20 s, the robots'
     * re-read every 30 s). A drain request reaches an owner sooner, on its slots (see {@link #noticeDrain});
     * only a node that holds no slot waits for this write, up to 20 s, to see one.
     */
    static final int REGISTRY_WRITE_HEARTBEATS = 10;

    /** Pauses the poll thread; tests pass one that does not sleep. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /**
     * Runs the renewals of one heartbeat and returns when all are done. A node runs them in parallel, so
     * that one slow renewal never delays another past its deadline; tests run them one after another.
     */
    @FunctionalInterface
    public interface Fanout {
        void runAll(List<Runnable> tasks);

        Fanout SEQUENTIAL = tasks -> tasks.forEach(Runnable::run);

        /** One virtual thread per task. */
        Fanout PARALLEL = tasks -> {
            if (tasks.size() == 1) {
                tasks.getFirst().run();
                return;
            }
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                tasks.forEach(threads::submit);
            }
        };
    }

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final SlotListener listener;
    private final Sleeper sleeper;
    private final Fanout fanout;
    private final SlotStore.Ownership me;
    private final long validNanos;
    /** When a lease pauses, after its last acknowledged renewal was sent; Long.MAX_VALUE without fast failover. */
    private final long pauseNanos;
    private final Map<String, OwnedLease> owned = new ConcurrentHashMap<>();
    private final Observations observations = new Observations();
    private final Outage outage = new Outage();
    private volatile boolean claiming = true;
    /** Instances seen holding this identity that this process cannot take back from, warned about once each; poll thread only. */
    private final Set<String> twinsWarned = new HashSet<>();
    /**
     * The other instances of this identity on this host that held slots at this process's first read of
     * them, if it bound its address before: the earlier processes that binding proved gone. Empty without
     * that proof; null before the first read. Set by the join or the first poll, which run one after the other.
     */
    private Set<String> earlier;
    private final Membership membership;
    private final boolean withMembership;
    /** When each claimable slot became claimable for this node, on its clock; poll thread only. */
    private final Map<String, Long> claimableSince = new HashMap<>();
    private boolean settled;
    /** Whether the last slot read came right after a registry read no older than a poll: a plan can use both. */
    private boolean registryBeforeSlots;
    /** Whether the last read showed an expired slot this node does not hold: a plan is likely; poll thread only. */
    private boolean expectClaims;
    private volatile boolean draining;
    /** Whether the operator forced the drain: slots go even with nowhere to go; poll thread only. */
    private boolean forced;
    /** Whether a drain waits for room, so that it says so once; poll thread only. */
    private boolean waitingForRoom;
    /** The slot a drain released last and waits to see taken; poll thread only. */
    private String inTransit;
    private long inTransitSince;
    private final AtomicLong claimsWon = new AtomicLong();
    private final AtomicLong claimsLost = new AtomicLong();
    private final AtomicLong claimsFailed = new AtomicLong();
    /** When the slots were last read successfully, on this node's clock; 0 before the first read. */
    private volatile long lastReadNanos;
    /** Finds owners whose process is gone, for fast failover; {@link GoneOwners#OFF} without it. */
    private final GoneOwners gone;
    private volatile String identityLost;
    /** Whether this node's own address has accepted a connect: only then can a refusal mean it was lost. */
    private volatile boolean listened;

    /** A node that takes part in no membership: it claims every claimable slot at once. */
    public SlotProtocol(SlotStore store, NodeConfig config, MonotonicClock clock, SlotListener listener, Sleeper sleeper) {
        this(store, NodeRegistry.NONE, config, clock, listener, sleeper, Fanout.SEQUENTIAL, () -> Workload.NONE, Load.Gauge.IDLE,
                GoneOwners.OFF);
    }

    /**
     * @param registry the nodes registry this node writes itself into and plans its claims from
     * @param workload what this node's robots amount to, for its registry document
     * @param gauge    the machine's CPU and memory, for its load score
     * @param gone     finds owners whose process is gone, to take their slots over before the lease runs
     *                 out; {@link GoneOwners#OFF} to always wait for the lease
     */
    public SlotProtocol(SlotStore store, NodeRegistry registry, NodeConfig config, MonotonicClock clock, SlotListener listener,
                        Sleeper sleeper, Fanout fanout, Supplier<Workload> workload, Load.Gauge gauge, GoneOwners gone) {
        this.store = store;
        this.config = config;
        this.clock = clock;
        this.listener = listener;
        this.sleeper = sleeper;
        this.fanout = fanout;
        // With fast failover, the late mark is written into the slot, and this owner keeps to it: it pauses
        // its robots before its heartbeat is that old. Other nodes take a slot over early only from an
        // owner that wrote one, by the mark it wrote, so nodes with other settings never misjudge it.
        this.me = new SlotStore.Ownership(config.node(), config.instance(), config.timing().lease(),
                gone == GoneOwners.OFF ? null : config.timing().late());
        this.validNanos = config.timing().lease().minus(config.timing().fenceMargin()).toNanos();
        this.pauseNanos = gone == GoneOwners.OFF ? Long.MAX_VALUE
                : config.timing().late().minus(config.timing().lateMargin()).toNanos();
        this.membership = new Membership(registry, config, workload, gauge, clock,
                config.timing().heartbeat().multipliedBy(REGISTRY_WRITE_HEARTBEATS), Membership.version());
        this.withMembership = registry != NodeRegistry.NONE;
        this.gone = gone;
    }

    /**
     * When this node last read the slots successfully, on its own clock ({@link MonotonicClock#nanoTime()}),
     * or empty before its first read: how its readiness is judged. From any thread.
     */
    public OptionalLong lastRead() {
        long last = lastReadNanos;
        return last == 0 ? OptionalLong.empty() : OptionalLong.of(last);
    }

    /** Claims won, lost to another node, and failed (no answer), since the node started; from any thread. */
    public ClaimCounts claims() {
        return new ClaimCounts(claimsWon.get(), claimsLost.get(), claimsFailed.get());
    }

    public NodeConfig config() {
        return config;
    }

    /** The leases this node holds and that have not ended, by slot id. */
    public List<Lease> leases() {
        return owned.values().stream()
                .filter(lease -> lease.endReason() == null)
                .sorted(Comparator.comparing(Lease::slotId, SlotIds.NATURAL))
                .map(Lease.class::cast)
                .toList();
    }

    /**
     * Reads every slot, takes back the slots still held under this node's identity, writes this node's
     * registry document if due, then claims while there is room: at once the claimable slots the
     * membership's plan gives to this node ({@link ClaimPlan}), and the others once they have been
     * claimable for a head start (half a poll) that lets their planned node go first. A dead or slow
     * planned node therefore delays a slot by less than a poll, so no slot stays unserved longer than
     * lease + two polls while some node has room. Returns the number of slots won.
     *
     * @throws InterruptedException if the thread is interrupted while it lets the registry settle
     */
    public int poll() throws InterruptedException {
        // First, so that the claims of a storm do not wait behind the registry writes of its winners: the
        // registry shows each poll's outcome one poll later. Writes only when due or changed.
        if (membership.report(state(), heldSlotIds()) && !draining) {
            startDrain();
        }
        return readAndClaim();
    }

    /**
     * Whether an operator asked this node to drain, as the slots just read show it: the request is put on
     * every slot the node holds ({@link SlotStore#markDrain}), which it reads at every poll anyway, so it is
     * seen within a poll at no cost; the registry write that also carries it is up to ten heartbeats away.
     * Only with a membership: without a registry no room can be judged.
     */
    private void noticeDrain(List<SlotView> slots) {
        for (SlotView slot : slots) {
            if (withMembership && owned.containsKey(slot.id()) && slot.drainAsked(config.instance())) {
                if (!draining) {
                    startDrain();
                }
                if (slot.drain().force() && !forced) {
                    log.warn("The drain is forced: this node hands its slots over even if no other node has room for them");
                    forced = true;
                }
            }
        }
    }

    private void startDrain() {
        log.info("An operator asked this node to drain: it hands its slots to standbys one at a time, then stops");
        draining = true;
        stopClaiming();
        // Out of every plan before the first release, as in releaseAll().
        membership.report(state(), heldSlotIds());
    }

    /** Whether this node drains: it claims nothing and hands its slots over, one a poll. */
    public boolean draining() {
        return draining;
    }

    /** Whether a drain has handed every slot over: the node may stop. */
    public boolean drained() {
        return draining && inTransit == null && owned.values().stream().allMatch(l -> l.endReason() != null);
    }

    /**
     * One step of a drain: once the slot handed over last is owned by someone else (or two polls have
     * passed), releases the next one gracefully, its robots stopping first, if some other live node has
     * room for it ({@link DrainRoom}). Each slot is taken by a standby at its next poll: a released slot
     * needs no waiting. So a slot is owned elsewhere about two polls after the drain was asked: one for
     * this node to see it, one for the standby.
     *
     * <p>Without room the node keeps the slot, serving it, and waits, checking again at every poll, for as
     * long as it takes: releasing would leave the slot unserved (the void the drain exists to avoid), and
     * giving up would undo the operator's request behind their back. Any bound would do one or the other.
     * The node shows DRAINING meanwhile and says why in its log; the operator can start a node with room,
     * force the drain, or stop the node. Waiting costs a registry read and a second slot read a poll, on
     * this node only. A forced drain releases without looking.
     */
    private void drainStep(List<SlotView> slots) {
        if (inTransit != null) {
            boolean taken = slots.stream().anyMatch(s -> s.id().equals(inTransit) && s.owner() != null && !config.node().equals(s.owner()));
            if (!taken && clock.nanoTime() - inTransitSince < 2 * config.timing().poll().toNanos()) {
                return;
            }
            inTransit = null;
        }
        Optional<OwnedLease> next = owned.values().stream().filter(l -> l.endReason() == null)
                .min(Comparator.comparing(Lease::slotId, SlotIds.NATURAL));
        if (next.isEmpty() || !forced && !roomElsewhere()) {
            return;
        }
        log.info("Draining: handing {} over", next.get().slotId());
        inTransit = next.get().slotId();
        inTransitSince = clock.nanoTime();
        release(next.get());
    }

    /**
     * Whether another live node has room for one more slot: the registry, then the slots again, so that
     * every slot a registered node has won counts against its room. Logs when a drain starts and stops
     * waiting. Unreadable registry or slots: no room, as far as this node can tell.
     */
    private boolean roomElsewhere() {
        membership.refresh(Duration.ZERO);
        List<SlotView> slots = readAndObserve();
        DrainRoom room = slots == null ? new DrainRoom(0, 0) : DrainRoom.of(config.node(), membership.live(), slots);
        if (room.room() > 0) {
            if (waitingForRoom) {
                log.info("Draining: another node has room now; handing the next slot over");
                waitingForRoom = false;
            }
            return true;
        }
        if (!waitingForRoom) {
            log.warn("Draining: no other live node has room ({} free, {} slot(s) already waiting for one); this node keeps "
                    + "serving its slots until one has, or until the drain is forced", room.free(), room.waiting());
            waitingForRoom = true;
        }
        return false;
    }

    /**
     * Joins the cluster before the first poll: refuses to go on if this node's ip:port holds a live lease
     * of a process it cannot take back from (on another host, or on this host without the proof of a
     * bound address), then registers this node and lets nodes starting with it register too (see
     * {@link #settle()}). Two nodes that share one identity would not fight, since neither takes the
     * other's slots back without waiting, but the second would stand by for the first's slots for
     * as long as it lives, and every log, table and take-back that names a node by its address would be
     * ambiguous; the check comes first so that a refused node writes nothing. If the slots cannot be
     * read, the check is skipped.
     *
     * @throws IllegalStateException naming the address and the instance that holds the lease
     * @throws InterruptedException  if the thread is interrupted while it lets the registry settle
     */
    public void join() throws InterruptedException {
        List<SlotView> slots;
        try {
            slots = store.readHeldBy(config.node());
            rememberEarlier(slots);
        } catch (RuntimeException e) {
            outage.failed("Cannot read slots", e);
            slots = List.of();
        }
        for (SlotView slot : slots) {
            if (heldByTwin(slot) && !slot.expired()) {
                throw new IllegalStateException(config.node() + " holds a live lease on " + slot.id() + " from "
                        + twinOf(slot) + ": " + (onThisHost(slot)
                        ? "bind the address before starting the node, or give every node its own ip:port"
                        : "give every node its own ip:port"));
            }
        }
        settle();
    }

    /**
     * Once, before this node's first claims: it writes itself into the registry and waits a short time
     * (half a poll, at most 250 ms) so that nodes starting together all see each other when they plan.
     */
    private void settle() throws InterruptedException {
        if (settled) {
            return;
        }
        settled = true;
        if (withMembership) {
            expectClaims = true;
            membership.report(state(), heldSlotIds());
            Duration half = config.timing().poll().dividedBy(2);
            sleeper.sleep(half.compareTo(Duration.ofMillis(250)) < 0 ? half : Duration.ofMillis(250));
        }
    }

    /** The slots, and before them the registry if a plan is likely; null if the slots cannot be read. */
    private List<SlotView> read() {
        if (expectClaims && withMembership && claiming && owned.size() < config.maxSlots()) {
            // Before the slots: a registry no newer than the slot table keeps the plan stable (see ClaimPlan).
            membership.refresh(config.timing().poll());
            // Fresh, or unreadable (no live members: the plan takes what it has room for): either way as
            // current as it gets. Not judged again by the clock, which a paused thread could see move on.
            registryBeforeSlots = true;
        } else {
            registryBeforeSlots = withMembership && membership.readWithin(config.timing().poll());
        }
        List<SlotView> slots = readAndObserve();
        if (slots != null) {
            expectClaims = slots.stream().anyMatch(slot -> slot.expired() && !owned.containsKey(slot.id()));
        }
        return slots;
    }

    private int readAndClaim() throws InterruptedException {
        settle();
        List<SlotView> slots = read();
        if (slots == null) {
            return 0;
        }
        reportOwned(slots);
        noticeDrain(slots);
        if (draining) {
            drainStep(slots);
            return 0;
        }
        int won = takeBackOwn(slots);
        if (claiming && owned.size() < config.maxSlots()) {
            won += takeFromGone(slots);
        }
        if (!claiming || owned.size() >= config.maxSlots()) {
            claimableSince.clear();
            return won;
        }
        List<SlotView> candidates = claimable(slots);
        if (!candidates.isEmpty() && withMembership && !registryBeforeSlots) {
            // Claimable without warning (a graceful release, say): a plan from an old registry read would
            // count nodes that have left since, and this node would wait a head start for them. The
            // registry, then the slots again, as read() does when it expects claims.
            slots = read();
            if (slots == null) {
                return won;
            }
            candidates = claimable(slots);
        }
        if (candidates.isEmpty()) {
            claimableSince.clear();
            return won;
        }
        long now = clock.nanoTime();
        claimableSince.keySet().retainAll(candidates.stream().map(SlotView::id).toList());
        candidates.forEach(slot -> claimableSince.putIfAbsent(slot.id(), now));
        Set<String> planned = withMembership ? plan(candidates, slots)
                : candidates.stream().map(SlotView::id).collect(Collectors.toSet());
        long headStart = config.timing().poll().toNanos() / 2;
        List<SlotView> ready = new ArrayList<>();
        for (SlotView slot : ClaimOrder.rank(config.node(), candidates)) {
            if (planned.contains(slot.id())) {
                ready.addFirst(slot);
            } else if (now - claimableSince.get(slot.id()) >= headStart) {
                ready.addLast(slot);
            }
        }
        for (SlotView slot : ready) {
            if (!claiming || owned.size() >= config.maxSlots()) {
                break;
            }
            if (claim(slot, Takeover.EXPIRED, null)) {
                won++;
            }
        }
        return won;
    }

    /**
     * The claimable slots the membership's plan gives to this node. Every node, this one included, is
     * taken as the registry lists it, so that nodes reading the same registry compute the same plan; this
     * node is added as it is right now only if the registry does not list it.
     */
    private Set<String> plan(List<SlotView> candidates, List<SlotView> slots) {
        List<ClaimPlan.Member> members = new ArrayList<>(membership.live());
        boolean listed = members.stream().anyMatch(m -> m.id().equals(config.node()));
        if (!listed) {
            members.add(new ClaimPlan.Member(config.node(), membership.load(owned.size()), config.maxSlots()));
        }
        // A twin's slots (this ip:port on another host) are not this node's: they take none of its room.
        List<SlotView> held = slots.stream().filter(slot -> !heldByTwin(slot)).toList();
        Set<String> mine = ClaimPlan.mine(candidates, held, members, config.node());
        log.debug("{} claimable slot(s), {} live node(s); the plan gives this node {}", candidates.size(), members.size(), mine);
        return mine;
    }

    /**
     * What this node does now: drains, owns slots, or stands by. A node that lost its identity says it
     * drains: it claims nothing more, and draining is what plans leave out (see {@link NodeRegistry#readLive()}).
     * From any thread.
     */
    public NodeState state() {
        if (draining || identityLost != null) {
            return NodeState.DRAINING;
        }
        return owned.isEmpty() ? NodeState.STANDBY : NodeState.OWNER;
    }

    private List<String> heldSlotIds() {
        return leases().stream().map(Lease::slotId).toList();
    }

    /** Tells the listener how the slots this node holds look now. */
    private void reportOwned(List<SlotView> slots) {
        for (SlotView slot : slots) {
            OwnedLease lease = owned.get(slot.id());
            if (lease != null && lease.endReason() == null && lease.epoch() == slot.epoch()) {
                notify("observed", lease, () -> listener.observed(lease, slot));
            }
        }
    }

    private List<SlotView> readAndObserve() {
        List<SlotView> slots;
        try {
            slots = store.readAll();
        } catch (RuntimeException e) {
            outage.failed("Cannot read slots", e);
            return null;
        }
        outage.succeeded();
        // Taken after the read returned: no earlier than the moment each document got its version.
        long read = clock.nanoTime();
        observations.update(slots, read);
        lastReadNanos = read == 0 ? 1 : read;
        return slots;
    }

    /**
     * Slots held under this node's ip:port that this process does not count as its own and takes back
     * without waiting (see {@link #takenBackAtOnce}): held by this process after a claim whose reply was
     * lost or a lease that fenced itself, or by an earlier process on this host that binding the address
     * proved gone. Nobody else can be running their robots. A slot held under this ip:port by any other
     * process (on another host, or on this one without that proof) is someone else's: it is claimed like
     * any other, once its lease has run out.
     */
    private int takeBackOwn(List<SlotView> slots) {
        rememberEarlier(slots);
        int won = 0;
        for (SlotView slot : slots) {
            if (heldByTwin(slot) && !slot.expired() && twinsWarned.add(slot.instance())) {
                log.warn("{} is held by {} under this node's identity by {}: this node waits out that lease; "
                        + "give every node its own ip:port", slot.id(), config.node(), twinOf(slot));
            }
            if (!takenBackAtOnce(slot) || owned.containsKey(slot.id())) {
                continue;
            }
            try {
                if (claiming && owned.size() < config.maxSlots()) {
                    long sent = clock.nanoTime();
                    if (store.reclaim(slot, me)) {
                        log.info("Took back {} held by instance {} of this node ({}), epoch {}",
                                slot.id(), slot.instance(), config.node(), slot.epoch() + 1);
                        acquire(slot, sent);
                        won++;
                    }
                } else if (store.release(slot.id(), slot.epoch(), slot.instance())) {
                    log.info("Released {}, held by instance {} of this node, which has no room for it",
                            slot.id(), slot.instance());
                }
            } catch (RuntimeException e) {
                outage.failed("Cannot take back " + slot.id(), e);
            }
        }
        return won;
    }

    /**
     * Whether this node, by what it has itself observed, could take {@code slot} (as read now) at its next
     * poll by any path: taken back at once from an earlier process of its own identity proven gone, the
     * lease expired by the server's clock and waited out on this node's clock, or, with fast failover,
     * the owner late by its own mark and watched that long, whatever a probe answers (a refusal can be
     * false). Room, claiming and the claim plan are left aside. The same predicates as the claims use, for
     * the simulation's invariant that no node can take a slot whose owner's robots still run.
     */
    public boolean mayTake(SlotView slot) {
        long now = clock.nanoTime();
        if (owned.containsKey(slot.id())) {
            return false;
        }
        boolean takenBack = config.node().equals(slot.owner()) && takenBackAtOnce(slot);
        return takenBack || expiredFor(slot, now) || gone != GoneOwners.OFF && judgeable(slot) && slot.late() && lateFor(slot, now);
    }

    /** The lease ran out by the server's clock, and this node has itself waited it out on its own. */
    private boolean expiredFor(SlotView slot, long now) {
        return slot.expired() && observations.waitedOut(slot, now);
    }

    /** Fast failover judges only an owner that wrote a late mark, never this node itself. */
    private boolean judgeable(SlotView slot) {
        return slot.owner() != null && slot.instance() != null && slot.lateMark() != null && !config.node().equals(slot.owner());
    }

    /** This node has itself watched the late owner's version for the whole late mark, on its own clock. */
    private boolean lateFor(SlotView slot, long now) {
        return observations.seenFor(slot, now, slot.lateMark());
    }

    private List<SlotView> claimable(List<SlotView> slots) {
        long now = clock.nanoTime();
        List<SlotView> candidates = new ArrayList<>();
        for (SlotView slot : slots) {
            if (!takenBackAtOnce(slot) && !owned.containsKey(slot.id()) && expiredFor(slot, now)) {
                candidates.add(slot);
            }
        }
        return candidates;
    }

    /**
     * Fast failover: a slot whose owner's heartbeat is late, by the late mark that owner wrote into it (an
     * owner that wrote none is never taken over early), and whose owner's process {@link GoneOwners} finds
     * gone is claimed at once, before its lease runs out, with a compare-and-set on the exact version read,
     * owner instance included, and late by the server's clock. The owner paused its robots before it got
     * that late, so even a false refusal (a live process behind a REJECT rule) costs a pause, not a second
     * runner. As for a lease, this node must also have seen that version for the whole late mark on its own
     * clock, so a jump of the database's clock cannot make a timely owner look late. The new epoch fences
     * the former owner's writes whatever happens. Owners with a timely heartbeat only teach this node that
     * their address accepts connects (see {@link GoneOwners#learn}).
     */
    private int takeFromGone(List<SlotView> slots) throws InterruptedException {
        if (gone == GoneOwners.OFF) {
            return 0;
        }
        long now = clock.nanoTime();
        int won = 0;
        for (SlotView slot : slots) {
            if (!judgeable(slot) || owned.containsKey(slot.id()) || !gone.canJudge(slot.owner(), slot.instance(), config.host())) {
                continue;
            }
            if (!slot.late()) {
                gone.learn(slot.owner(), slot.instance());
                continue;
            }
            if (!lateFor(slot, now)) {
                continue;
            }
            if (!claiming || owned.size() >= config.maxSlots()) {
                break;
            }
            Optional<String> evidence = gone.gone(slot.owner(), slot.instance());
            if (evidence.isPresent() && claim(slot, Takeover.OWNER_GONE, evidence.get())) {
                won++;
            }
        }
        return won;
    }

    /**
     * With fast failover, other nodes read a refused connect to this node's address as the death of its
     * process. So if this node's own listener is gone while it lives, it fences every lease at once and
     * claims nothing more: before any standby can see its heartbeat late, let alone probe it twice.
     * Like other nodes, it counts a refusal only once its address has accepted (an application that
     * listens on it itself may start listening after the node). Returns the reason once the identity is
     * lost, else empty. From the fence thread.
     */
    public Optional<String> checkIdentity() {
        if (gone == GoneOwners.OFF || identityLost != null) {
            return Optional.ofNullable(identityLost);
        }
        OwnerProbe.Result self = gone.probe(config.node());
        if (self == OwnerProbe.Result.ACCEPTED) {
            listened = true;
        } else if (self == OwnerProbe.Result.REFUSED && listened) {
            identityLost = "this node's address " + config.node() + " refuses connects: its listener is gone";
            log.error("{}; fencing every slot now, claiming no more and leaving the plans (other nodes would take this node for dead)",
                    identityLost);
            stopClaiming();
            for (OwnedLease lease : owned.values()) {
                if (lease.endReason() == null) {
                    lose(lease, LossReason.FENCED);
                }
            }
        }
        return Optional.ofNullable(identityLost);
    }

    /** One claim of one slot, exactly as it was read; true if this node won it. */
    private boolean claim(SlotView slot, Takeover how, String evidence) {
        long sent = clock.nanoTime();
        boolean won;
        try {
            won = how == Takeover.OWNER_GONE ? store.claimFromGone(slot, me) : store.claim(slot, me);
        } catch (RuntimeException e) {
            // The claim may have landed; if so the next poll finds the slot under this node's identity
            // and takes it back.
            claimsFailed.incrementAndGet();
            outage.failed("Claim of " + slot.id() + " failed", e);
            notify("claimed", slot.id(), () -> listener.claimed(slot, ClaimOutcome.FAILED));
            return false;
        }
        if (!won) {
            claimsLost.incrementAndGet();
            log.debug("Lost the race for {} (or, after its owner was found gone, it renewed)", slot.id());
            notify("claimed", slot.id(), () -> listener.claimed(slot, ClaimOutcome.CONFLICT));
            return false;
        }
        claimsWon.incrementAndGet();
        notify("claimed", slot.id(), () -> listener.claimed(slot, ClaimOutcome.WON));
        if (how == Takeover.OWNER_GONE) {
            log.warn("Took over {} from {} before its lease ran out (heartbeat {} old, lease {}): {}; epoch {}",
                    slot.id(), slot.owner(), Durations.approximately(slot.age()), Durations.format(slot.lease()), evidence,
                    slot.epoch() + 1);
            membership.forget(slot.owner(), slot.instance());
        } else if (slot.owner() != null) {
            log.info("Took over {} from {} (lease {} expired), epoch {}",
                    slot.id(), slot.owner(), Durations.format(slot.lease()), slot.epoch() + 1);
        }
        OwnedLease lease = acquire(slot, sent);
        // From another owner: a slot held under this node's own identity (by a twin on another host) is
        // recorded as taken back, as before.
        if (slot.owner() != null && !config.node().equals(slot.owner())) {
            // The age was the server's at the read; what passed since, this node's clock tells.
            Duration unowned = slot.age().plusNanos(Math.max(0, sent - lastReadNanos));
            String why = how == Takeover.OWNER_GONE ? evidence : "lease " + Durations.format(slot.lease()) + " expired";
            notify("tookOver", lease, () -> listener.tookOver(lease, slot, unowned, how, why));
        }
        return true;
    }

    /** The slot won, as it was claimed: at the next epoch. */
    private OwnedLease acquire(SlotView claimed, long claimSentNanos) {
        long epoch = claimed.epoch() + 1;
        OwnedLease lease = new OwnedLease(claimed.id(), epoch, config.node(), clock, validNanos, pauseNanos, claimSentNanos);
        log.info("Acquired {} at epoch {}", claimed.id(), epoch);
        // Held while the listener runs, so that a loss found meanwhile is reported after acquired().
        synchronized (lease) {
            owned.put(claimed.id(), lease);
            notify("acquired", lease, () -> listener.acquired(lease, claimed));
        }
        return lease;
    }

    /**
     * Renews every lease this node holds, each on its own (see {@link Fanout}); a renewal that matches
     * nothing ends its lease at once.
     */
    public void renewAll() {
        List<Runnable> renewals = new ArrayList<>();
        for (OwnedLease lease : owned.values()) {
            if (lease.endReason() == null) {
                renewals.add(() -> renew(lease));
            }
        }
        if (!renewals.isEmpty()) {
            fanout.runAll(renewals);
        }
    }

    private void renew(OwnedLease lease) {
        long sent = clock.nanoTime();
        boolean renewed;
        try {
            renewed = store.renew(lease.slotId(), lease.epoch(), me);
        } catch (RuntimeException e) {
            // Not a loss yet: the fence deadline decides when to give up.
            outage.failed("Renewal of " + lease.slotId() + " failed", e);
            notify("renewalFailed", lease, () -> listener.renewalFailed(lease));
            return;
        }
        outage.succeeded();
        long answered = clock.nanoTime();
        if (!renewed) {
            lose(lease, whyGone(lease));
            return;
        }
        synchronized (lease) {
            // An answer after the late point: the robots may have seen the lease invalid, so they pause
            // (if the fence check has not paused them yet) and resume, under one rule.
            pauseIfLate(lease, answered);
            if (!lease.renewed(sent, answered)) {
                lose(lease, LossReason.FENCED);
                return;
            }
            if (lease.resumeIfTimely(answered)) {
                log.info("Renewed {} at epoch {} after a pause: its robots start again", lease.slotId(), lease.epoch());
                notify("resumed", lease, () -> listener.resumed(lease));
            }
        }
        notify("renewed", lease, () -> listener.renewed(lease, Duration.ofNanos(answered - sent)));
    }

    /**
     * Pauses a lease whose late point has passed: other nodes may take its slot over early from here on,
     * if a connect to this node is refused. Callers hold the lease's lock, so that its listener hears
     * paused and resumed in order.
     */
    private void pauseIfLate(OwnedLease lease, long now) {
        if (lease.pauseIfDue(now)) {
            log.warn("No renewal of {} acknowledged for {} (late mark {} minus {}): pausing its robots; it keeps the slot "
                            + "until its lease ends and resumes them when a renewal is acknowledged", lease.slotId(),
                    Durations.format(Duration.ofNanos(pauseNanos)), Durations.format(config.timing().late()),
                    Durations.format(config.timing().lateMargin()));
            notify("paused", lease, () -> listener.paused(lease));
        }
    }

    private LossReason whyGone(OwnedLease lease) {
        try {
            return store.read(lease.slotId())
                    .map(slot -> slot.owner() == null && slot.epoch() > lease.epoch() ? LossReason.REVOKED : LossReason.TAKEN)
                    .orElse(LossReason.VANISHED);
        } catch (RuntimeException e) {
            return LossReason.TAKEN;
        }
    }

    /**
     * Ends every lease whose local deadline has passed: no renewal succeeded for {@code lease - fenceMargin}
     * since the last successful one was sent. Uses only this node's monotonic clock, so it works while
     * the database is unreachable.
     */
    public void checkFences() {
        long now = clock.nanoTime();
        for (OwnedLease lease : owned.values()) {
            if (lease.endReason() == null && lease.deadlinePassed(now)) {
                lose(lease, LossReason.FENCED);
            } else if (pauseNanos != Long.MAX_VALUE && lease.endReason() == null && !lease.paused()) {
                synchronized (lease) {
                    pauseIfLate(lease, now);
                }
            }
        }
    }

    /**
     * Held under this ip:port by this process, or by an earlier process on this host that binding the
     * address proved gone. Only a process that holds a bound address proves anything: without one, another
     * process with this identity may be alive and running its robots, and two such processes would take the
     * slots back from each other at every poll. A bound one proves gone only the processes that were
     * there at its first read: a later process with its address cannot have bound it, so it proves nothing.
     */
    private boolean takenBackAtOnce(SlotView slot) {
        if (!config.node().equals(slot.owner())) {
            return false;
        }
        Set<String> provenGone = earlier;
        return config.instance().equals(slot.instance()) || provenGone != null && provenGone.contains(slot.instance());
    }

    /** Once, at the first read of the slots: the other instances of this identity on this host that binding proved gone. */
    private void rememberEarlier(List<SlotView> slots) {
        if (earlier == null) {
            earlier = !config.addressBound() ? Set.of() : slots.stream()
                    .filter(slot -> config.node().equals(slot.owner()) && onThisHost(slot) && !config.instance().equals(slot.instance()))
                    .map(SlotView::instance)
                    .collect(Collectors.toUnmodifiableSet());
        }
    }

    /** Held under this ip:port by another process that this one cannot take back from: it waits out the lease. */
    private boolean heldByTwin(SlotView slot) {
        return config.node().equals(slot.owner()) && !takenBackAtOnce(slot);
    }

    private boolean onThisHost(SlotView slot) {
        return config.host() != null && config.host().equals(NodeConfig.hostOf(slot.instance()));
    }

    /** Who holds a twin's slot, for a log line or an error. */
    private String twinOf(SlotView slot) {
        return onThisHost(slot)
                ? "another process on this host (instance " + slot.instance() + "), which "
                        + (config.addressBound() ? "started after this one bound the address, so never bound it"
                                : "this one cannot prove gone since it did not bind the address itself")
                : "another host (instance " + slot.instance() + "); this node is on " + config.host();
    }

    /** Removes this node from the registry: the end of a graceful stop. */
    public void leave() {
        membership.leave();
    }

    /** Stops claiming; every later poll only reads. */
    public void stopClaiming() {
        claiming = false;
    }

    /**
     * Graceful stop: stops claiming, lets the listener stop each slot's work while renewals go on, then
     * releases each slot (owner cleared, epoch kept, time set to 1970) so that a standby takes it at its
     * next poll. Slots are released in parallel (see {@link Fanout}).
     */
    public void releaseAll() {
        stopClaiming();
        List<Runnable> releases = owned.values().stream().filter(l -> l.endReason() == null)
                .<Runnable>map(lease -> () -> release(lease)).toList();
        if (!releases.isEmpty()) {
            // Out of the plans first: the registry still counts this node as live, and once its slots are
            // free it has room, so a standby whose plan ranks it first would wait a head start for it.
            membership.report(NodeState.DRAINING, heldSlotIds());
            fanout.runAll(releases);
        }
    }

    private void release(OwnedLease lease) {
        synchronized (lease) {
            lease.releasing();
        }
        notify("releasing", lease, () -> listener.releasing(lease));
        // The lease ends, and the listener hears so, before the slot is released: nobody can take the
        // slot while this node still counts it as its own.
        boolean endedHere = lease.end(LossReason.RELEASED);
        if (endedHere) {
            reportLoss(lease, LossReason.RELEASED);
        }
        // A lease that fenced itself meanwhile is still ours in the database: releasing it lets a standby
        // start at once instead of waiting out the lease. The compare-and-set on epoch and instance makes
        // this harmless if anyone took the slot since.
        if (endedHere || lease.endReason() == LossReason.FENCED) {
            try {
                if (store.release(lease.slotId(), lease.epoch(), config.instance())) {
                    log.info("Released {} at epoch {}", lease.slotId(), lease.epoch());
                }
            } catch (RuntimeException e) {
                log.warn("Could not release {}; it becomes claimable when its lease expires: {}", lease.slotId(), e.toString());
            }
        }
    }

    private void lose(OwnedLease lease, LossReason reason) {
        if (lease.end(reason)) {
            log.warn("Lost {} at epoch {}: {}", lease.slotId(), lease.epoch(), describe(reason));
            reportLoss(lease, reason);
        }
    }

    private void reportLoss(OwnedLease lease, LossReason reason) {
        synchronized (lease) {
            notify("lost", lease, () -> listener.lost(lease, reason));
        }
        // Removed only after the listener returned, so the slot is not claimed again on this node
        // before the work of the old lease has stopped.
        owned.remove(lease.slotId(), lease);
    }

    private static String describe(LossReason reason) {
        return switch (reason) {
            case TAKEN -> "another node owns it now";
            case REVOKED -> "an operator released it";
            case FENCED -> "no renewal succeeded within the lease minus the fence margin";
            case RELEASED -> "released";
            case VANISHED -> "the slot document is gone";
        };
    }

    private static void notify(String event, Object about, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.error("Slot listener failed on {} for {}", event, about, e);
        }
    }
}
