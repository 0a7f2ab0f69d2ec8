package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A standby's second clock: a slot may be claimed only once this node itself saw the slot in one version (epoch,
 * heartbeat, instance), or its owner's document at one beat, for a full lease, counted from the first read that showed
 * it.
 */
class ObservationsTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final long T0 = 1_000_000_000L;
    private static final NodeId OWNER = new NodeId("10.0.0.5", 7700);
    private static final Instant BEAT = Instant.parse("2026-11-26T10:00:00Z");
    /** The owner documents of instances i1 and i2 at OWNER. */
    private static final String I1 = OwnerDocRules.ownerId(OWNER, "i1");

    private static final String I2 = OwnerDocRules.ownerId(OWNER, "i2");

    private final Observations observations = new Observations();

    private static SlotView owned(String id, long epoch, Instant time, String instance) {
        return SlotView.of(id, OWNER, instance, time, LEASE, epoch, Duration.ofSeconds(6));
    }

    private static SlotView slot0() {
        return owned("slot-0", 3, BEAT, "i1");
    }

    /** slot-0 as its owner's renewal with {@code beat} left it. */
    private static SlotView slot0AtBeat(long beat) {
        SlotView s = slot0();
        return SlotView.of(s.id(), s.owner(), s.instance(), s.time(), s.lease(), s.epoch(), s.age())
                .withChanges(s.changes())
                .withBeat(beat);
    }

    private static long at(Duration sinceT0) {
        return T0 + sinceT0.toNanos();
    }

    @Test
    void aSlotIsWaitedOutAFullLeaseAfterTheFirstReadThatShowedItsVersionAndNotBefore() {
        observations.update(List.of(slot0()), Map.of(), T0);
        // Read again and again in the same version: the wait still counts from the first read.
        observations.update(List.of(slot0()), Map.of(), at(Duration.ofSeconds(2)));
        observations.update(List.of(slot0()), Map.of(), at(Duration.ofSeconds(4)));

        assertFalse(observations.waitedOut(slot0(), at(LEASE.minusNanos(1))).isPresent());
        assertTrue(
                observations.waitedOut(slot0(), at(LEASE)).isPresent(), "a full lease, to the nanosecond, is enough");
    }

    @Test
    void aSlotNeverReadByThisNodeIsNotWaitedOutWhateverTheDatabaseSays() {
        observations.update(List.of(slot0()), Map.of(), T0);

        assertFalse(observations
                .waitedOut(owned("slot-1", 3, BEAT, "i1"), at(Duration.ofHours(1)))
                .isPresent());
    }

    @Test
    void aReleasedOrNeverOwnedSlotNeedsNoWait() {
        SlotView released = SlotView.of("slot-1", null, null, Instant.EPOCH, LEASE, 7, Duration.ofDays(1));

        assertTrue(observations.waitedOut(released, T0).isPresent(), "nobody runs its robots: no read, no wait");
    }

    @Test
    void aNewHeartbeatEpochOrInstanceStartsTheWaitAgain() {
        observations.update(List.of(slot0()), Map.of(), T0);
        for (SlotView changed : List.of(
                owned("slot-0", 3, BEAT.plusMillis(1), "i1"),
                owned("slot-0", 4, BEAT, "i1"),
                owned("slot-0", 3, BEAT, "i2"))) {
            Observations o = new Observations();
            o.update(List.of(slot0()), Map.of(), T0);
            o.update(List.of(changed), Map.of(), at(Duration.ofSeconds(3)));

            assertFalse(
                    o.waitedOut(changed, at(LEASE)).isPresent(), "a live owner keeps changing the version: " + changed);
            assertTrue(
                    o.waitedOut(changed, at(Duration.ofSeconds(3).plus(LEASE))).isPresent(), changed.toString());
            assertFalse(
                    o.waitedOut(slot0(), at(Duration.ofHours(1))).isPresent(),
                    "the version last read is the one that counts");
        }
    }

    @Test
    void aVersionOtherThanTheOneSeenIsNotWaitedOut() {
        observations.update(List.of(slot0()), Map.of(), T0);

        // The claim is decided on a newer read than the last update: its version was never seen.
        assertFalse(observations
                .seenFor(owned("slot-0", 3, BEAT.plusSeconds(1), "i1"), at(Duration.ofHours(1)), LEASE)
                .isPresent());
    }

    @Test
    void aSlotMissingFromOneReadStartsItsWaitAgainWhenItIsBack() {
        observations.update(List.of(slot0()), Map.of(), T0);
        // A read that did not show slot-0 (for example a narrower read): this node lost sight of it, so the
        // time before the gap does not count.
        observations.update(List.of(owned("slot-1", 1, BEAT, "i9")), Map.of(), at(Duration.ofSeconds(2)));
        observations.update(List.of(slot0()), Map.of(), at(Duration.ofSeconds(4)));

        assertFalse(observations.waitedOut(slot0(), at(LEASE)).isPresent());
        assertTrue(observations
                .waitedOut(slot0(), at(Duration.ofSeconds(4).plus(LEASE)))
                .isPresent());
    }

    @Test
    void theLateMarkIsWaitedOutOnTheSameSecondClock() {
        Duration late = Duration.ofSeconds(2);
        observations.update(List.of(slot0()), Map.of(), T0);

        assertFalse(observations.seenFor(slot0(), at(late.minusNanos(1)), late).isPresent());
        assertTrue(observations.seenFor(slot0(), at(late), late).isPresent());
        assertFalse(observations.waitedOut(slot0(), at(late)).isPresent(), "the lease itself is longer");
    }

    @Test
    void anOwnerDocumentStandingStillForALeaseLetsASlotNeverReadBeforeBeClaimedAtThatBeat() {
        observations.update(List.of(), Map.of(I1, 41L), T0);
        observations.update(List.of(), Map.of(I1, 41L), at(Duration.ofSeconds(2)));
        // The slot is read for the first time only once it is late.
        observations.update(List.of(slot0AtBeat(41)), Map.of(I1, 41L), at(Duration.ofSeconds(4)));

        assertFalse(
                observations.waitedOut(slot0AtBeat(41), at(LEASE.minusNanos(1))).isPresent());
        assertEquals(
                OptionalLong.of(41),
                observations.waitedOut(slot0AtBeat(41), at(LEASE)).orElseThrow().ownerBeat(),
                "waited on the owner's document: the claim must require its beat");
    }

    @Test
    void anOwnerDocumentThatMovesOrGoesMissingStartsTheWaitAgain() {
        observations.update(List.of(), Map.of(I1, 41L), T0);
        observations.update(List.of(), Map.of(I1, 42L), at(Duration.ofSeconds(1)));
        observations.update(List.of(slot0AtBeat(42)), Map.of(I1, 42L), at(Duration.ofSeconds(2)));
        assertFalse(
                observations
                        .seenFor(slot0AtBeat(42), at(Duration.ofSeconds(3)), Duration.ofSeconds(3))
                        .isPresent(),
                "the owner renewed at 1 s");
        assertEquals(
                OptionalLong.of(42),
                observations
                        .seenFor(slot0AtBeat(42), at(Duration.ofSeconds(4)), Duration.ofSeconds(3))
                        .orElseThrow()
                        .ownerBeat());

        Observations other = new Observations();
        other.update(List.of(), Map.of(I1, 41L), T0);
        other.update(List.of(), Map.of(), at(Duration.ofSeconds(1)));
        other.update(List.of(slot0AtBeat(41)), Map.of(I1, 41L), at(Duration.ofSeconds(2)));
        assertFalse(other.waitedOut(slot0AtBeat(41), at(LEASE)).isPresent(), "a read without the document forgets it");
        assertTrue(other.waitedOut(slot0AtBeat(41), at(Duration.ofSeconds(2).plus(LEASE)))
                .isPresent());
    }

    @Test
    void aSlotAtAnotherBeatThanItsOwnersDocumentIsNotWaitedOutByTheDocument() {
        // The owner renewed at beat 41, then took slot-0 with a claim's beat (42), and went quiet.
        observations.update(List.of(), Map.of(I1, 41L), T0);
        observations.update(List.of(slot0AtBeat(42)), Map.of(I1, 41L), at(Duration.ofSeconds(4)));

        assertFalse(
                observations.waitedOut(slot0AtBeat(42), at(LEASE)).isPresent(),
                "the document stood still, but the claim that wrote this slot came after it");
        assertEquals(
                Observations.Waited.ON_SLOT,
                observations
                        .waitedOut(slot0AtBeat(42), at(Duration.ofSeconds(4).plus(LEASE)))
                        .orElseThrow(),
                "the slot itself, watched for a lease");
    }

    @Test
    void theSlotItselfWatchedLongEnoughNeedsNoBeat() {
        observations.update(List.of(slot0AtBeat(41)), Map.of(I1, 41L), T0);
        observations.update(List.of(slot0AtBeat(41)), Map.of(I1, 42L), at(Duration.ofSeconds(4)));

        assertEquals(
                Observations.Waited.ON_SLOT,
                observations.waitedOut(slot0AtBeat(41), at(LEASE)).orElseThrow(),
                "the slot stood still for a lease while its owner document moved: a slot its owner no longer renews");
    }

    @Test
    void onlyTheSlotsOwnerInstanceCounts() {
        observations.update(List.of(), Map.of(I2, 41L), T0);
        SlotView slot = owned("slot-0", 3, BEAT, "i1");
        observations.update(List.of(slot), Map.of(I2, 41L), at(Duration.ofSeconds(4)));

        assertFalse(observations.waitedOut(slot, at(Duration.ofSeconds(6))).isPresent());
        SlotView revoked = SlotView.of("slot-1", null, null, BEAT, LEASE, 4, Duration.ofSeconds(6));
        observations.update(List.of(revoked), Map.of(I2, 41L), at(Duration.ofSeconds(5)));
        assertFalse(
                observations.waitedOut(revoked, at(Duration.ofSeconds(9))).isPresent(),
                "a slot with no owner instance is watched itself");
    }

    @Test
    void ownerDocumentsStandingStillForLongAreStale() {
        observations.update(List.of(), Map.of(I1, 41L, I2, 7L), T0);
        observations.update(List.of(), Map.of(I1, 41L, I2, 8L), at(Duration.ofSeconds(60)));

        assertEquals(
                List.of(new Observations.StaleOwner(I1, 41)),
                observations.staleOwners(at(Duration.ofSeconds(90)), Duration.ofSeconds(90)));
        assertEquals(List.of(), observations.staleOwners(at(Duration.ofSeconds(90)) - 1, Duration.ofSeconds(90)));
    }
}
