package io.standby.slot.internal;

import io.standby.slot.ClaimCounts;
import io.standby.slot.ClaimOutcome;
import io.standby.slot.Durations;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import io.standby.slot.Takeover;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims of one poll: which claimable slots this node tries, in which order, and the compare-and-set of each. Slots
 * the membership's plan gives to this node ({@link ClaimPlan}) are tried at once; the others once they have been
 * claimable for a head start (half a poll) that lets their planned node go first. A dead or slow planned node therefore
 * delays a slot by less than a poll, so no slot stays unserved longer than lease + two polls while some node has room.
 * Poll thread only, but {@link #stop()}, {@link #hasRoom()} and {@link #counts()}.
 */
final class ClaimRound {

    private static final Logger log = LoggerFactory.getLogger(ClaimRound.class);

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final SlotListener listener;
    private final Membership membership;
    private final boolean withMembership;
    private final LeaseBook book;
    private final SlotReads reads;
    private final OwnIdentity identity;
    private final Outage outage;
    private volatile boolean claiming = true;
    /** When each claimable slot became claimable for this node, on its clock. */
    private final Map<String, Long> claimableSince = new HashMap<>();

    /**
     * The most claims of planned slots sent in one write. A storm's node needs about a hundred slots, which one at a
     * time cost it a round trip each and left most nodes outside a poll; a bound keeps one write small and a failed
     * one's unknown outcomes few.
     */
    static final int CLAIMS_PER_WRITE = 64;

    private final AtomicLong won = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    ClaimRound(
            ProtocolSetup setup,
            Membership membership,
            LeaseBook book,
            SlotReads reads,
            OwnIdentity identity,
            Outage outage) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.listener = setup.listener();
        this.membership = membership;
        this.withMembership = setup.hasMembership();
        this.book = book;
        this.reads = reads;
        this.identity = identity;
        this.outage = outage;
    }

    /** Stops claiming for good; every later poll only reads. From any thread. */
    void stop() {
        claiming = false;
    }

    /** Whether this node claims and has room for one more slot. */
    boolean hasRoom() {
        return claiming && book.size() < config.maxSlots();
    }

    /** Claims won, lost to another node, and failed (no answer); from any thread. */
    ClaimCounts counts() {
        return new ClaimCounts(won.get(), lost.get(), failed.get());
    }

    /**
     * Claims, while there is room, the slots whose lease expired (or that were released), in the order the plan and the
     * head start give. If some are claimable and the registry was not read just before the slots, reads both again
     * first. Returns the number of slots won.
     */
    int claimExpired(List<SlotView> slots) {
        if (!hasRoom()) {
            claimableSince.clear();
            return 0;
        }
        List<SlotView> candidates = claimable(slots);
        if (!candidates.isEmpty() && withMembership && !reads.registryBeforeSlots()) {
            // Claimable without warning (a graceful release, say): a plan from an old registry read would
            // count nodes that have left since, and this node would wait a head start for them. The
            // registry, then the slots again, as a read does when it expects claims.
            slots = reads.read(hasRoom());
            if (slots == null) {
                return 0;
            }
            candidates = claimable(slots);
        }
        if (candidates.isEmpty()) {
            claimableSince.clear();
            return 0;
        }
        long now = clock.nanoTime();
        // A set: retainAll of a list looks every key up in it, 143 ms a poll at 10,000 claimable slots.
        claimableSince.keySet().retainAll(candidates.stream().map(SlotView::id).collect(Collectors.toSet()));
        candidates.forEach(slot -> claimableSince.putIfAbsent(slot.id(), now));
        Set<String> planned = withMembership
                ? plan(candidates, slots)
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
        int claimed = 0;
        int next = 0;
        while (next < ready.size() && hasRoom()) {
            if (clock.nanoTime() - reads.lastReadNanos()
                    > config.timing().poll().toNanos()) {
                // The read is a poll old: other nodes have claimed since, and a claim from it would likely
                // lose. The next poll reads again. (At 10,000 free slots a node tried them one after the
                // other for minutes, 25 ms a call, each a lost race once others had taken them.)
                log.debug("Stopping this poll's claims after {} of {}: the read is a poll old", claimed, ready.size());
                break;
            }
            // The planned slots go together, never more than the room (they may all win): no other node plans
            // them, so they seldom meet a race. The others, which every node with room tries after the head
            // start, go one to a write: a storm's leave sent bulks of them that mostly lost, and the server's
            // queue behind them timed the leavers' releases out.
            boolean together = planned.contains(ready.get(next).id());
            int batch = together ? Math.min(CLAIMS_PER_WRITE, config.maxSlots() - book.size()) : 1;
            List<SlotStore.Claim> claims = new ArrayList<>();
            while (next < ready.size()
                    && claims.size() < batch
                    && (claims.isEmpty() || planned.contains(ready.get(next).id()) == together)) {
                SlotView slot = ready.get(next++);
                reads.expiredFor(slot, clock.nanoTime())
                        .ifPresent(waited -> claims.add(new SlotStore.Claim(slot, waited.ownerBeat())));
            }
            claimed += claim(
                    claims.stream().map(SlotStore.Claim::seen).toList(),
                    Takeover.EXPIRED,
                    null,
                    me -> store.claimAll(claims, me));
        }
        return claimed;
    }

    /**
     * The claimable slots the membership's plan gives to this node. Every node, this one included, is taken as the
     * registry lists it, so that nodes reading the same registry compute the same plan; this node is added as it is
     * right now only if the registry does not list it.
     */
    private Set<String> plan(List<SlotView> candidates, List<SlotView> slots) {
        List<ClaimPlan.Member> members = new ArrayList<>(membership.live());
        boolean listed = members.stream().anyMatch(m -> m.id().equals(config.node()));
        if (!listed) {
            members.add(new ClaimPlan.Member(config.node(), membership.load(book.size()), config.maxSlots()));
        }
        // A twin's slots (this ip:port on another host) are not this node's: they take none of its room.
        List<SlotView> held =
                slots.stream().filter(slot -> !identity.heldByTwin(slot)).toList();
        // The readers of each range first: the nodes whose polls read its free slots (see FreeShare).
        Set<String> mine = ClaimPlan.mine(candidates, held, members, config.node(), reads.ranking());
        log.debug(
                "{} claimable slot(s), {} live node(s); the plan gives this node {}",
                candidates.size(),
                members.size(),
                mine);
        return mine;
    }

    private List<SlotView> claimable(List<SlotView> slots) {
        long now = clock.nanoTime();
        List<SlotView> candidates = new ArrayList<>();
        for (SlotView slot : slots) {
            if (!identity.takenBackAtOnce(slot)
                    && !book.holds(slot.id())
                    && reads.expiredFor(slot, now).isPresent()) {
                candidates.add(slot);
            }
        }
        return candidates;
    }

    /**
     * One claim of one slot, exactly as it was read: a compare-and-set on its version, or, for an owner found gone, on
     * its version, owner instance and lateness; and on the owner's beat if this node waited on the owner's document
     * rather than on the slot. True if this node won it.
     */
    boolean claim(SlotView slot, Takeover how, String evidence, Observations.Waited waited) {
        return claim(
                        List.of(slot),
                        how,
                        evidence,
                        me -> wonIf(
                                slot,
                                how == Takeover.OWNER_GONE
                                        ? store.claimFromGone(slot, me, waited.ownerBeat())
                                        : store.claim(slot, me, waited.ownerBeat())))
                == 1;
    }

    /**
     * Claims {@code slot} from an owner whose watch link died, at a beat up to {@code maxBeat} (see
     * {@link StandbyLinks}); otherwise as {@link #claim(SlotView, Takeover, String, Observations.Waited)}.
     */
    boolean claimWatched(SlotView slot, String evidence, long maxBeat, Duration wait) {
        return claim(
                        List.of(slot),
                        Takeover.LINK,
                        evidence,
                        me -> wonIf(slot, store.claimFromWatched(slot, me, maxBeat, wait)))
                == 1;
    }

    private static Set<String> wonIf(SlotView slot, boolean won) {
        return won ? Set.of(slot.id()) : Set.of();
    }

    /**
     * Sends the claims of {@code slots} in one {@code write}, which returns the ids of those won, and takes the leases
     * won; returns their number. All share one beat, and their leases count from one send.
     */
    private int claim(
            List<SlotView> slots, Takeover how, String evidence, Function<SlotStore.Ownership, Set<String>> write) {
        if (slots.isEmpty()) {
            return 0;
        }
        OwnerBeats.Stamp stamp = book.beats().claimStamp();
        SlotStore.Ownership me =
                stamp == null ? book.beats().withNewBeat() : book.beats().withBeatOf(stamp);
        long sent = clock.nanoTime();
        Set<String> taken;
        try {
            taken = write.apply(me);
        } catch (RuntimeException e) {
            // Any of them may have landed; if so the next poll finds the slot under this node's identity
            // and takes it back.
            failed.addAndGet(slots.size());
            outage.failed("Claim of " + describe(slots) + " failed", e);
            slots.forEach(
                    slot -> Notify.safely("claimed", slot.id(), () -> listener.claimed(slot, ClaimOutcome.FAILED)));
            return 0;
        }
        for (SlotView slot : slots) {
            if (taken.contains(slot.id())) {
                took(slot, how, evidence, stamp == null ? sent : stamp.sentNanos(), sent, me);
            } else {
                lost.incrementAndGet();
                log.debug("Lost the race for {} (or, after its owner was found gone, it renewed)", slot.id());
                Notify.safely("claimed", slot.id(), () -> listener.claimed(slot, ClaimOutcome.CONFLICT));
            }
        }
        return taken.size();
    }

    private static String describe(List<SlotView> slots) {
        return slots.size() == 1
                ? slots.get(0).id()
                : slots.size() + " slots (" + slots.get(0).id() + ", ...)";
    }

    private void took(SlotView slot, Takeover how, String evidence, long leaseFrom, long sent, SlotStore.Ownership me) {
        won.incrementAndGet();
        Notify.safely("claimed", slot.id(), () -> listener.claimed(slot, ClaimOutcome.WON));
        if (how != Takeover.EXPIRED) {
            log.warn(
                    "Took over {} from {} before its lease ran out (heartbeat {} old, lease {}): {}; epoch {}",
                    slot.id(),
                    slot.owner(),
                    Durations.approximately(slot.age()),
                    Durations.format(slot.lease()),
                    evidence,
                    slot.epoch() + 1);
            membership.forget(slot.owner(), slot.instance());
        } else if (slot.owner() != null) {
            log.info(
                    "Took over {} from {} (lease {} expired), epoch {}",
                    slot.id(),
                    slot.owner(),
                    Durations.format(slot.lease()),
                    slot.epoch() + 1);
        }
        OwnedLease lease = book.acquire(slot, leaseFrom, me);
        // From another owner: a slot held under this node's own identity (by a twin on another host) is
        // recorded as taken back, as before.
        if (slot.owner() != null && !config.node().equals(slot.owner())) {
            // The age was the server's at the read; what passed since, this node's clock tells.
            Duration unowned = slot.age().plusNanos(Math.max(0, sent - reads.lastReadNanos()));
            String why = how != Takeover.EXPIRED ? evidence : "lease " + Durations.format(slot.lease()) + " expired";
            Notify.safely("tookOver", lease, () -> listener.tookOver(lease, slot, unowned, how, why));
        }
    }

    /** The slots whose head start is being timed, for the node's meters (read without the poll's lock). */
    int remembered() {
        return claimableSince.size();
    }
}
