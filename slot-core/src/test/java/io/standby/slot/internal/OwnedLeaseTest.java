package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.LossReason;
import io.standby.slot.NodeId;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A lease on its own: out-of-order renewals, and the one caller that ends it. */
class OwnedLeaseTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private final ManualClock clock = new ManualClock();

    private OwnedLease lease() {
        return new OwnedLease(
                new OwnedLease.Identity("slot-0", 1, new NodeId("10.0.0.1", 7700)),
                OwnedLease.Timing.unpaused(5 * SECOND),
                clock,
                clock.nanoTime());
    }

    @Test
    void aRenewalThatCompletesLateNeverMovesTheLastSendTimeBack() {
        OwnedLease lease = lease();
        long start = clock.nanoTime();
        clock.tick(Duration.ofSeconds(2));
        // Two renewals in flight, sent at +1 s and +2 s; the later one is answered first.
        assertTrue(lease.renewed(start + 2 * SECOND, clock.nanoTime()));
        assertTrue(lease.renewed(start + SECOND, clock.nanoTime()));
        assertEquals(Duration.ZERO, lease.sinceRenewal(), "counted from the later send, at +2 s");

        clock.tick(Duration.ofMillis(4_999));
        assertTrue(lease.isValid(), "valid for the lease after the later send");
        clock.tick(Duration.ofMillis(1));
        assertFalse(lease.isValid());
    }

    @Test
    void onlyTheFirstCallerEndsALeaseAndItsReasonStays() {
        OwnedLease lease = lease();
        assertNull(lease.endReason());
        assertTrue(lease.end(LossReason.TAKEN));
        assertFalse(lease.end(LossReason.FENCED), "a second caller must not report the loss again");
        assertEquals(LossReason.TAKEN, lease.endReason());
        assertFalse(lease.isValid());
    }
}
