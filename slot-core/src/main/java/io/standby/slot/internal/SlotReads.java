package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How this node reads the slots: a poll reads the owner documents and only the slots that may concern it
 * ({@link SlotRules#pollFilter}: its share of the free ones, its own address's, late or expired), so that its cost does
 * not grow with the slots of live owners, nor, in a claim storm, with the free slots times the nodes
 * ({@link FreeShare}). Every read is recorded in its {@link Observations}, so that a lease is judged expired (or an
 * owner late) only once this node has itself watched the owner stand still long enough on its own clock; and when a
 * plan is likely, the registry is read just before the slots, so that a plan uses a registry no newer than the slot
 * table. Poll thread only, but {@link #lastRead()}.
 */
final class SlotReads {

    private static final Logger log = LoggerFactory.getLogger(SlotReads.class);
    /** A date no heartbeat reaches: a read with it takes every slot. */
    private static final Instant EVERY_SLOT = Instant.parse("9999-12-31T00:00:00Z");
    /** A date no heartbeat is before (a released slot's is exactly this): a read with it takes no late slot. */
    private static final Instant NO_SLOT = Instant.EPOCH;
    /**
     * How long an owner document must stand still before a poll removes it. Far longer than any lease: its process is
     * gone or holds nothing, and removing it only makes standbys watch its slots one by one.
     */
    static final Duration SWEEP_AFTER = Duration.ofMinutes(2);

    private final SlotStore store;
    /** When this node last removed the owner documents left in the slots collection; 0 for never. */
    private long legacySweptNanos;

    private final NodeConfig config;
    private final MonotonicClock clock;
    private final Membership membership;
    private final boolean withMembership;
    private final LeaseBook book;
    private final Outage outage;
    private final Observations observations = new Observations();
    /** The owner documents of the last read. */
    private List<SlotStore.OwnerBeat> owners = List.of();
    /** The server's time at the last read that reported it, and this node's clock then; null before. */
    private Instant serverNow;

    private long serverNowReadNanos;
    /** When the slots were last read successfully, on this node's clock; 0 before the first read. */
    private volatile long lastReadNanos;
    /** Whether the last slot read came right after a registry read no older than a poll: a plan can use both. */
    private boolean registryBeforeSlots;
    /** Whether the last read showed an expired slot this node does not hold: a plan is likely. */
    private boolean expectClaims;
    /** Whether a read has succeeded: after one that carried no server time, a read takes every slot. */
    private boolean readOnce;
    /**
     * Whether this node reads every free slot, not its share: set by a poll that showed it nothing to claim while it
     * had room (its ranges' other readers took them, or the free slots are in ranges whose readers are full, gone or
     * ranked by another registry); cleared when it has no room.
     */
    private boolean everyFree;
    /**
     * The ranking of the last read's share, which the plan follows; null when the plan is over every node (no share, or
     * few nodes).
     */
    private FreeShare.Ranking ranking;

    SlotReads(ProtocolSetup setup, Membership membership, LeaseBook book, Outage outage) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.membership = membership;
        this.withMembership = setup.hasMembership();
        this.book = book;
        this.outage = outage;
    }

    /** When this node last read the slots successfully, on its own clock; empty before. From any thread. */
    OptionalLong lastRead() {
        long last = lastReadNanos;
        return last == 0 ? OptionalLong.empty() : OptionalLong.of(last);
    }

    /** When the slots were last read, on this node's clock; 0 before the first read. */
    long lastReadNanos() {
        return lastReadNanos;
    }

    /** A node about to make its first claims reads the registry before the slots, as after a read that shows some. */
    void expectClaims() {
        expectClaims = true;
    }

    /** Whether the last read of the slots came right after a fresh enough read of the registry. */
    boolean registryBeforeSlots() {
        return registryBeforeSlots;
    }

    /**
     * The slots, and before them the registry if a plan is likely and the node can claim; null if the slots cannot be
     * read.
     */
    List<SlotView> read(boolean canClaim) {
        if (expectClaims && withMembership && canClaim) {
            // Before the slots: a registry no newer than the slot table keeps the plan stable (see ClaimPlan).
            membership.refresh(config.timing().poll());
            // Fresh, or unreadable (no live members: the plan takes what it has room for): either way as
            // current as it gets. Not judged again by the clock, which a paused thread could see move on.
            registryBeforeSlots = true;
        } else {
            registryBeforeSlots =
                    withMembership && membership.readWithin(config.timing().poll());
        }
        FreeShare share = share(canClaim);
        List<SlotView> slots = readAndObserve(share);
        if (slots != null) {
            expectClaims = slots.stream().anyMatch(slot -> slot.expired() && !book.holds(slot.id()));
            if (!canClaim) {
                everyFree = false;
            } else if (!expectClaims) {
                everyFree = true;
            }
        }
        return slots;
    }

    /**
     * This node's share of the free slots: none without room (it could claim none), every one without a registry, else
     * the ranges where it ranks among the first readers, or every one if its share showed it nothing
     * ({@link #everyFree}).
     */
    private FreeShare share(boolean canClaim) {
        ranking = null;
        if (!canClaim) {
            return FreeShare.NONE;
        }
        if (!withMembership) {
            return FreeShare.ALL;
        }
        List<ClaimPlan.Member> live = membership.live();
        if (live.isEmpty()) {
            // No registry to rank by (unreadable, or this node alone and unlisted): every free slot.
            return FreeShare.ALL;
        }
        FreeShare.Ranking ranked = FreeShare.Ranking.of(live, config.node());
        if (ranked.share(config.node(), FreeShare.READERS).coversEveryFreeSlot()) {
            // Few nodes with room: each reads every free slot, and the plan is over all of them.
            return FreeShare.ALL;
        }
        // The plan follows the first readers even when this node reads every free slot: every node plans
        // alike, whatever it reads.
        ranking = ranked;
        // In one step to every free slot: the last slots of a storm, in ranges whose readers are full,
        // wait one poll (a wider share a step took two to four more at 100 nodes), and few are left by then.
        return everyFree ? FreeShare.ALL : ranked.share(config.node(), FreeShare.READERS);
    }

    /**
     * The ranking of the last read's share: the plan gives each slot it read to one of its range's readers; null if
     * none.
     */
    FreeShare.Ranking ranking() {
        return ranking;
    }

    /** Every slot a poll reads, every free one included: what a drain judges the room elsewhere by. */
    List<SlotView> readAndObserve() {
        ranking = null;
        return readAndObserve(FreeShare.ALL);
    }

    /**
     * The slots a poll reads (see {@link SlotRules#pollFilter}) with this share of the free ones, recorded in the
     * observations with the owner documents; null if they cannot be read.
     */
    private List<SlotView> readAndObserve(FreeShare share) {
        SlotStore.Poll poll;
        try {
            poll = store.poll(config.node(), lateBefore(), share);
        } catch (RuntimeException e) {
            outage.failed("Cannot read slots", e);
            return null;
        }
        readOnce = true;
        outage.succeeded();
        // Taken after the read returned: no earlier than the moment each document got its version.
        long read = clock.nanoTime();
        observations.update(poll.slots(), poll.beats(), read);
        owners = poll.owners();
        lastReadNanos = read == 0 ? 1 : read;
        if (poll.serverNow() != null) {
            serverNow = poll.serverNow();
            serverNowReadNanos = read;
        }
        sweepOwners(read);
        return poll.slots();
    }

    /**
     * Heartbeats older than this are read: the server's time now, as this node guesses it from its last read and its
     * own clock since, less one and a half heartbeats. A live owner renews every heartbeat, so its slots are not read;
     * a late one's are, before its late mark (two heartbeats) and its lease. Which slots are read is no safety
     * condition, only what this node can judge.
     *
     * <p>The first read takes no late slot: without the server's time this node cannot tell late from timely, and what
     * it needs at once is there without them (its own address's slots, for the take-back and the twin check; the owner
     * documents, whose wait starts at once). A late slot is read from the second poll on, one poll later than before,
     * well inside its lease. Only if the first read carried no server time (nothing matched: no owner document, no free
     * slot, none of its own), a read takes every slot, until one does.
     */
    private Instant lateBefore() {
        if (serverNow == null) {
            return readOnce ? EVERY_SLOT : NO_SLOT;
        }
        Duration since = Duration.ofNanos(Math.max(0, clock.nanoTime() - serverNowReadNanos));
        return serverNow
                .plus(since)
                .minus(config.timing().heartbeat().multipliedBy(3).dividedBy(2));
    }

    /**
     * Removes the owner documents that stood still for {@link #SWEEP_AFTER}: processes that ended without a graceful
     * stop, or hold no slot. Nothing depends on it but the poll's size. Once every {@link #SWEEP_AFTER}, also those
     * that a node of before 2026-11 left in the slots collection, where {@code db.slots.find()} would show them.
     */
    private void sweepOwners(long now) {
        if (legacySweptNanos == 0 || now - legacySweptNanos >= SWEEP_AFTER.toNanos()) {
            legacySweptNanos = now == 0 ? 1 : now;
            try {
                long swept = store.sweepLegacyOwners(SWEEP_AFTER);
                if (swept > 0) {
                    log.info(
                            "Removed {} owner document(s) that an earlier version left in the slots collection", swept);
                }
            } catch (RuntimeException e) {
                log.debug("Could not remove the owner documents left in the slots collection: {}", e.toString());
            }
        }
        for (Observations.StaleOwner stale : observations.staleOwners(now, SWEEP_AFTER)) {
            try {
                if (store.sweepOwner(stale.ownerId(), stale.beat())) {
                    log.debug(
                            "Removed the owner document {}, at beat {} for {}",
                            stale.ownerId(),
                            stale.beat(),
                            SWEEP_AFTER);
                }
            } catch (RuntimeException e) {
                log.debug("Could not remove the owner document {}: {}", stale.ownerId(), e.toString());
            }
        }
    }

    /** The owner documents of the last successful read. */
    List<SlotStore.OwnerBeat> owners() {
        return owners;
    }

    /** The lease ran out by the server's clock, and this node has itself waited it out on its own: how, if so. */
    Optional<Observations.Waited> expiredFor(SlotView slot, long now) {
        return slot.expired() ? observations.waitedOut(slot, now) : Optional.empty();
    }

    /** This node has itself watched the slot's owner stand still for {@code wait}, on its own clock: how, if so. */
    Optional<Observations.Waited> seenFor(SlotView slot, long now, Duration wait) {
        return observations.seenFor(slot, now, wait);
    }

    /** The entries of its observations, by name, for the node's meters. */
    void remembered(Map<String, Integer> to) {
        to.put("observed_slots", observations.slotsSeen());
        to.put("observed_owners", observations.ownersSeen());
    }
}
