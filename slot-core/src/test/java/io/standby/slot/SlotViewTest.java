package io.standby.slot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * How a slot read from the database is judged: expired and late strictly past the lease and the late mark (a slot
 * exactly as old as its lease is still its owner's), and the state an operator's table shows.
 */
class SlotViewTest {

    private static final NodeId OWNER = new NodeId("127.0.0.1", 7001);
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration LATE = Duration.ofSeconds(4);
    private static final Instant HEARTBEAT = Instant.parse("2026-11-26T12:00:00Z");

    private static SlotView owned(Duration age) {
        return SlotView.of("slot-0", OWNER, "i-1", HEARTBEAT, LEASE, 3, age).withLateMark(LATE);
    }

    @Test
    void aSlotExpiresOnlyOnceItsHeartbeatIsOlderThanItsLease() {
        assertFalse(owned(LEASE.minusMillis(1)).expired());
        assertFalse(owned(LEASE).expired(), "exactly the lease old: the owner may still be fencing itself");
        assertTrue(owned(LEASE.plusMillis(1)).expired());
    }

    @Test
    void anOwnerIsLateOnlyOnceItsHeartbeatIsOlderThanTheLateMarkItWrote() {
        assertFalse(owned(LATE).isLate(), "exactly at the mark: the owner pauses its robots before it, not at it");
        assertTrue(owned(LATE.plusMillis(1)).isLate());
        assertFalse(
                SlotView.of("slot-0", OWNER, "i-1", HEARTBEAT, LEASE, 3, LEASE.plusSeconds(60))
                        .isLate(),
                "an owner that wrote no late mark is never late, however old its heartbeat");
        assertFalse(
                SlotView.of("slot-0", null, null, HEARTBEAT, LEASE, 3, LEASE)
                        .withLateMark(LATE)
                        .isLate(),
                "a slot nobody owns has nobody to be late");
    }

    @Test
    void aDrainRequestConcernsOnlyTheInstanceItNames() {
        SlotView asked = SlotView.of("slot-0", OWNER, "i-1", HEARTBEAT, LEASE, 3, Duration.ZERO)
                .withDrain(SlotView.Drain.asked("i-1"));
        assertTrue(asked.drainAsked("i-1"));
        assertFalse(asked.drainAsked("i-2"), "the same address restarted is another instance");
        assertFalse(owned(Duration.ZERO).drainAsked("i-1"));
    }

    @Test
    void theStateShowsWhoMayTakeTheSlot() {
        assertEquals(
                SlotState.FREE,
                SlotView.of("slot-0", null, null, Instant.EPOCH, LEASE, 0, Duration.ZERO)
                        .state(),
                "released (time 1970): claimable at once, even judged by a lease that did not run out");
        assertEquals(SlotState.OWNED, owned(LEASE).state());
        assertEquals(SlotState.EXPIRED, owned(LEASE.plusMillis(1)).state());
        assertEquals(
                SlotState.REVOKED,
                SlotView.of("slot-0", null, null, HEARTBEAT, LEASE, 4, LEASE).state(),
                "revoked by an operator: its former owner's lease has not run out, so nobody may take it yet");
        assertEquals(
                SlotState.FREE,
                SlotView.of("slot-0", null, null, HEARTBEAT, LEASE, 4, LEASE.plusMillis(1))
                        .state(),
                "revoked long enough ago");
    }

    @Test
    void onlyASlotWithoutOwnerInstanceAndHeartbeatCountsAsReleased() {
        assertTrue(SlotView.of("slot-0", null, null, Instant.EPOCH, LEASE, 2, Duration.ZERO)
                .released());
        assertFalse(
                SlotView.of("slot-0", null, null, HEARTBEAT, LEASE, 2, Duration.ZERO)
                        .released(),
                "revoked");
        assertFalse(SlotView.of("slot-0", null, "i-1", Instant.EPOCH, LEASE, 2, Duration.ZERO)
                .released());
        assertFalse(SlotView.of("slot-0", OWNER, null, Instant.EPOCH, LEASE, 2, Duration.ZERO)
                .released());
    }
}
