package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A standby's second clock: a slot may be claimed only once this node itself saw the slot in one version
 * (epoch, heartbeat, instance) for a full lease, counted from the first read that showed that version.
 */
class ObservationsTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final long T0 = 1_000_000_000L;
    private static final NodeId OWNER = new NodeId("10.0.0.5", 7700);
    private static final Instant BEAT = Instant.parse("2026-11-26T10:00:00Z");

    private final Observations observations = new Observations();

    private static SlotView owned(String id, long epoch, Instant time, String instance) {
        return new SlotView(id, OWNER, instance, time, LEASE, epoch, Duration.ofSeconds(6), 0);
    }

    private static SlotView slot0() {
        return owned("slot-0", 3, BEAT, "i1");
    }

    private static long at(Duration sinceT0) {
        return T0 + sinceT0.toNanos();
    }

    @Test
    void aSlotIsWaitedOutAFullLeaseAfterTheFirstReadThatShowedItsVersionAndNotBefore() {
        observations.update(List.of(slot0()), T0);
        // Read again and again in the same version: the wait still counts from the first read.
        observations.update(List.of(slot0()), at(Duration.ofSeconds(2)));
        observations.update(List.of(slot0()), at(Duration.ofSeconds(4)));

        assertFalse(observations.waitedOut(slot0(), at(LEASE.minusNanos(1))));
        assertTrue(observations.waitedOut(slot0(), at(LEASE)), "a full lease, to the nanosecond, is enough");
    }

    @Test
    void aSlotNeverReadByThisNodeIsNotWaitedOutWhateverTheDatabaseSays() {
        observations.update(List.of(slot0()), T0);

        assertFalse(observations.waitedOut(owned("slot-1", 3, BEAT, "i1"), at(Duration.ofHours(1))));
    }

    @Test
    void aReleasedOrNeverOwnedSlotNeedsNoWait() {
        SlotView released = new SlotView("slot-1", null, null, Instant.EPOCH, LEASE, 7, Duration.ofDays(1), 0);

        assertTrue(observations.waitedOut(released, T0), "nobody runs its robots: no read, no wait");
    }

    @Test
    void aNewHeartbeatEpochOrInstanceStartsTheWaitAgain() {
        observations.update(List.of(slot0()), T0);
        for (SlotView changed : List.of(
                owned("slot-0", 3, BEAT.plusMillis(1), "i1"),
                owned("slot-0", 4, BEAT, "i1"),
                owned("slot-0", 3, BEAT, "i2"))) {
            Observations o = new Observations();
            o.update(List.of(slot0()), T0);
            o.update(List.of(changed), at(Duration.ofSeconds(3)));

            assertFalse(o.waitedOut(changed, at(LEASE)), "a live owner keeps changing the version: " + changed);
            assertTrue(o.waitedOut(changed, at(Duration.ofSeconds(3).plus(LEASE))), changed.toString());
            assertFalse(o.waitedOut(slot0(), at(Duration.ofHours(1))), "the version last read is the one that counts");
        }
    }

    @Test
    void aVersionOtherThanTheOneSeenIsNotWaitedOut() {
        observations.update(List.of(slot0()), T0);

        // The claim is decided on a newer read than the last update: its version was never seen.
        assertFalse(observations.seenFor(owned("slot-0", 3, BEAT.plusSeconds(1), "i1"), at(Duration.ofHours(1)), LEASE));
    }

    @Test
    void aSlotMissingFromOneReadStartsItsWaitAgainWhenItIsBack() {
        observations.update(List.of(slot0()), T0);
        // A read that did not show slot-0 (for example a narrower read): this node lost sight of it, so the
        // time before the gap does not count.
        observations.update(List.of(owned("slot-1", 1, BEAT, "i9")), at(Duration.ofSeconds(2)));
        observations.update(List.of(slot0()), at(Duration.ofSeconds(4)));

        assertFalse(observations.waitedOut(slot0(), at(LEASE)));
        assertTrue(observations.waitedOut(slot0(), at(Duration.ofSeconds(4).plus(LEASE))));
    }

    @Test
    void theLateMarkIsWaitedOutOnTheSameSecondClock() {
        Duration late = Duration.ofSeconds(2);
        observations.update(List.of(slot0()), T0);

        assertFalse(observations.seenFor(slot0(), at(late.minusNanos(1)), late));
        assertTrue(observations.seenFor(slot0(), at(late), late));
        assertFalse(observations.waitedOut(slot0(), at(late)), "the lease itself is longer");
    }
}
