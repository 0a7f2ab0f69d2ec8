package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotView;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * How this node reads the slots: every read is recorded in its {@link Observations}, so that a lease is
 * judged expired (or an owner late) only once this node has itself watched the same version long enough
 * on its own clock; and when a plan is likely, the registry is read just before the slots, so that a
 * plan uses a registry no newer than the slot table. Poll thread only, but {@link #lastRead()}.
 */
final class SlotReads {

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final Membership membership;
    private final boolean withMembership;
    private final LeaseBook book;
    private final Outage outage;
    private final Observations observations = new Observations();
    /** When the slots were last read successfully, on this node's clock; 0 before the first read. */
    private volatile long lastReadNanos;
    /** Whether the last slot read came right after a registry read no older than a poll: a plan can use both. */
    private boolean registryBeforeSlots;
    /** Whether the last read showed an expired slot this node does not hold: a plan is likely. */
    private boolean expectClaims;

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
     * The slots, and before them the registry if a plan is likely and the node can claim; null if the
     * slots cannot be read.
     */
    List<SlotView> read(boolean canClaim) {
        if (expectClaims && withMembership && canClaim) {
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
            expectClaims = slots.stream().anyMatch(slot -> slot.expired() && !book.holds(slot.id()));
        }
        return slots;
    }

    /** Every slot, recorded in the observations; null if they cannot be read. */
    List<SlotView> readAndObserve() {
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

    /** The lease ran out by the server's clock, and this node has itself waited it out on its own. */
    boolean expiredFor(SlotView slot, long now) {
        return slot.expired() && observations.waitedOut(slot, now);
    }

    /** This node has itself watched the slot's current version for {@code wait}, on its own clock. */
    boolean seenFor(SlotView slot, long now, Duration wait) {
        return observations.seenFor(slot, now, wait);
    }
}
