package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.LossReason;
import io.standby.slot.NodeId;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The owner's lease book with fast failover: a lease pauses at its late point (its robots stop, since another node may
 * take the slot early from then on), resumes under the same epoch only after a renewal sent later made it timely, never
 * resumes once a release began, and ends for good at its deadline.
 */
class OwnedLeasePauseTest {

    private static final Duration VALID = Duration.ofSeconds(5);
    private static final Duration PAUSE = Duration.ofSeconds(3);
    private static final OwnedLease.Identity IDENTITY =
            new OwnedLease.Identity("slot-0", 7, new NodeId("10.0.0.1", 7700));
    private final ManualClock clock = new ManualClock();
    private final long start = clock.nanoTime();

    private OwnedLease withLateMark(Duration pause) {
        return new OwnedLease(IDENTITY, new OwnedLease.Timing(VALID.toNanos(), pause.toNanos()), clock, start);
    }

    private long now() {
        return clock.nanoTime();
    }

    @Test
    void aLeaseIsValidUntilItsLatePointAndPausesThereOnce() {
        OwnedLease lease = withLateMark(PAUSE);
        clock.tick(PAUSE.minusNanos(1));
        assertTrue(lease.isValid());
        assertFalse(lease.pauseIfDue(now()), "not due a nanosecond before the late point");
        assertFalse(lease.paused());

        clock.tick(Duration.ofNanos(1));
        assertFalse(lease.isValid(), "from the late point on, another node may take the slot early");
        assertTrue(lease.pauseIfDue(now()));
        assertTrue(lease.paused());
        assertFalse(lease.pauseIfDue(now()), "only one caller pauses it, and so only one stops its robots");
        assertEquals(7, lease.epoch());
        assertEquals(null, lease.endReason(), "a pause is not a loss: the slot stays this node's");
    }

    /**
     * An owner a watch link covers writes no late mark. Once such a write is acknowledged, the slot can no longer show
     * a mark, so the lease does not pause at the late point: a database that stops answering then pauses nothing before
     * the deadline. A write with the mark, sent before or after, puts the late point back at once, counted from the
     * last acknowledged send.
     */
    @Test
    void aLeaseWhoseLastAcknowledgedWriteCarriedNoMarkPausesAtTheLatePointOnlyOnceAWriteWithTheMarkIsSent() {
        OwnedLease lease = new OwnedLease(
                IDENTITY,
                new OwnedLease.Timing(VALID.toNanos(), PAUSE.toNanos()),
                clock,
                new OwnedLease.Claim(start, 10, true),
                OwnerLinks.OFF);
        clock.tick(Duration.ofSeconds(1));
        long unmarkedSent = now();
        assertTrue(lease.renewed(unmarkedSent, now(), 11), "a renewal without the mark, acknowledged");

        clock.tick(PAUSE);
        assertTrue(lease.isValid(), "past the late point of that renewal: no slot can show a mark");
        assertFalse(lease.pauseIfDue(now()));

        lease.sendingLate(12);
        assertFalse(lease.isValid(), "a write with the mark is on its way: late from the last acknowledged send");
        assertTrue(lease.pauseIfDue(now()));

        clock.tick(Duration.ofMillis(100));
        assertTrue(lease.renewed(now(), now(), 13), "a later write without the mark, acknowledged");
        assertTrue(lease.resumeIfTimely(now()));
        clock.tick(PAUSE);
        assertTrue(lease.isValid(), "mark 12 can no longer land over beat 13");
        clock.tick(VALID);
        assertFalse(lease.isValid(), "the deadline still ends it");
    }

    @Test
    void aLeaseClaimedWithoutTheMarkPausesOnlyAtItsDeadline() {
        OwnedLease lease = new OwnedLease(
                IDENTITY,
                new OwnedLease.Timing(VALID.toNanos(), PAUSE.toNanos()),
                clock,
                new OwnedLease.Claim(start, 4, false),
                OwnerLinks.OFF);
        clock.tick(PAUSE);
        assertTrue(lease.isValid());
        lease.sendingLate(3);
        assertTrue(lease.isValid(), "a mark at a lower beat than the acknowledged claim's cannot land");
        lease.sendingLate(4);
        assertFalse(lease.isValid(), "the mark at the claim's own beat may be what the slot shows");
    }

    @Test
    void aPausedLeaseResumesUnderTheSameEpochOnceALaterRenewalMadeItTimely() {
        OwnedLease lease = withLateMark(PAUSE);
        clock.tick(PAUSE);
        assertTrue(lease.pauseIfDue(now()));
        assertFalse(lease.resumeIfTimely(now()), "no renewal since: still late");

        clock.tick(Duration.ofSeconds(1));
        // A renewal sent now, answered now: the lease is timely again.
        assertTrue(lease.renewed(now(), now()));
        assertTrue(lease.resumeIfTimely(now()));
        assertFalse(lease.paused());
        assertTrue(lease.isValid());
        assertFalse(lease.resumeIfTimely(now()), "only one caller resumes it, and so only one restarts its robots");
        assertEquals(7, lease.epoch());
    }

    @Test
    void aPausedLeaseThatIsBeingReleasedNeverResumes() {
        OwnedLease lease = withLateMark(PAUSE);
        clock.tick(PAUSE);
        assertTrue(lease.pauseIfDue(now()));
        lease.releasing();

        assertTrue(lease.renewed(now(), now()));
        assertFalse(lease.resumeIfTimely(now()), "its robots stay stopped until the release ends");
        assertTrue(lease.paused());
    }

    @Test
    void anEndedLeaseNeitherPausesNorResumes() {
        OwnedLease paused = withLateMark(PAUSE);
        clock.tick(PAUSE);
        assertTrue(paused.pauseIfDue(now()));
        OwnedLease running = withLateMark(PAUSE);
        assertTrue(paused.end(LossReason.TAKEN));
        assertTrue(running.end(LossReason.TAKEN));

        assertFalse(running.pauseIfDue(now()), "a lost slot reports its loss, not a pause");
        assertFalse(paused.renewed(now(), now()), "an ended lease takes no renewal");
        assertFalse(paused.resumeIfTimely(now()));
        assertFalse(paused.isValid());
    }

    @Test
    void aLeaseWithoutALateMarkNeverPausesAndEndsAtItsDeadline() {
        OwnedLease lease = new OwnedLease(IDENTITY, OwnedLease.Timing.unpaused(VALID.toNanos()), clock, start);
        clock.tick(VALID.minusNanos(1));
        assertTrue(lease.isValid());
        assertFalse(lease.pauseIfDue(now()));
        assertFalse(lease.deadlinePassed(now()));

        clock.tick(Duration.ofNanos(1));
        assertFalse(lease.isValid());
        assertTrue(lease.deadlinePassed(now()));
        assertFalse(lease.pauseIfDue(now()), "without a late mark nobody takes the slot early: nothing to pause for");
    }

    @Test
    void aLateMarkBeyondTheLeasePausesAtTheDeadline() {
        OwnedLease lease = withLateMark(VALID.plusSeconds(10));
        clock.tick(VALID.minusNanos(1));
        assertFalse(lease.pauseIfDue(now()));

        clock.tick(Duration.ofNanos(1));
        assertTrue(lease.pauseIfDue(now()), "a lease pauses no later than it ends");
    }

    @Test
    void aRenewalAnsweredAfterTheDeadlineChangesNothing() {
        OwnedLease lease = withLateMark(PAUSE);
        clock.tick(VALID);

        assertFalse(lease.renewed(now() - 1, now()), "once invalid, always invalid");
        assertFalse(lease.isValid());
        assertEquals(VALID, lease.sinceRenewal(), "still counted from the claim's send");
    }

    @Test
    void sinceRenewalCountsFromTheLatestAcknowledgedSend() {
        OwnedLease lease = withLateMark(PAUSE);
        clock.tick(Duration.ofSeconds(2));
        assertEquals(Duration.ofSeconds(2), lease.sinceRenewal());
        assertTrue(lease.renewed(now() - Duration.ofSeconds(1).toNanos(), now()));

        assertEquals(Duration.ofSeconds(1), lease.sinceRenewal());
    }
}
