package io.standby.slot;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a slot read from the database is judged: expired and late strictly past the lease and the late mark
 * (a slot exactly as old as its lease is still its owner's), and the state an operator's table shows.
 */
class SlotViewTest {

    private static final NodeId OWNER = new NodeId("127.0.0.1", 7001);
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration LATE = Duration.ofSeconds(4);
    private static final Instant HEARTBEAT = Instant.parse("2026-11-26T12:00:00Z");

    private static SlotView owned(Duration age) {
        return new SlotView("slot-0", OWNER, "i-1", HEARTBEAT, LEASE, 3, age, 0, LATE, null);
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
        assertFalse(new SlotView("slot-0", OWNER, "i-1", HEARTBEAT, LEASE, 3, LEASE.plusSeconds(60), 0).isLate(),
                "an owner that wrote no late mark is never late, however old its heartbeat");
        assertFalse(new SlotView("slot-0", null, null, HEARTBEAT, LEASE, 3, LEASE, 0, LATE, null).isLate(),
                "a slot nobody owns has nobody to be late");
    }

    @Test
    void aDrainRequestConcernsOnlyTheInstanceItNames() {
        SlotView asked = new SlotView("slot-0", OWNER, "i-1", HEARTBEAT, LEASE, 3, Duration.ZERO, 0, null,
                new SlotView.Drain("i-1", false));
        assertTrue(asked.drainAsked("i-1"));
        assertFalse(asked.drainAsked("i-2"), "the same address restarted is another instance");
        assertFalse(owned(Duration.ZERO).drainAsked("i-1"));
    }

    @Test
    void theStateShowsWhoMayTakeTheSlot() {
        assertEquals(SlotState.FREE, new SlotView("slot-0", null, null, Instant.EPOCH, LEASE, 0, Duration.ZERO, 0).state(),
                "released (time 1970): claimable at once, even judged by a lease that did not run out");
        assertEquals(SlotState.OWNED, owned(LEASE).state());
        assertEquals(SlotState.EXPIRED, owned(LEASE.plusMillis(1)).state());
        assertEquals(SlotState.REVOKED, new SlotView("slot-0", null, null, HEARTBEAT, LEASE, 4, LEASE, 0).state(),
                "revoked by an operator: its former owner's lease has not run out, so nobody may take it yet");
        assertEquals(SlotState.FREE, new SlotView("slot-0", null, null, HEARTBEAT, LEASE, 4, LEASE.plusMillis(1), 0).state(),
                "revoked long enough ago");
    }

    @Test
    void onlyASlotWithoutOwnerInstanceAndHeartbeatCountsAsReleased() {
        assertTrue(new SlotView("slot-0", null, null, Instant.EPOCH, LEASE, 2, Duration.ZERO, 0).released());
        assertFalse(new SlotView("slot-0", null, null, HEARTBEAT, LEASE, 2, Duration.ZERO, 0).released(), "revoked");
        assertFalse(new SlotView("slot-0", null, "i-1", Instant.EPOCH, LEASE, 2, Duration.ZERO, 0).released());
        assertFalse(new SlotView("slot-0", OWNER, null, Instant.EPOCH, LEASE, 2, Duration.ZERO, 0).released());
    }
}
