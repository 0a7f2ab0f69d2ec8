package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.Lease;
import io.standby.slot.NodeState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A graceful stop: the node claims nothing more, its listener stops each slot's work while renewals go on, then each
 * slot is released for a standby to take at once. A lease that fenced itself meanwhile is released all the same; a
 * release with no answer leaves the slot to expire.
 */
class SlotProtocolReleaseTest {

    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(1));

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(TIMING);

    private SlotTable table;
    private final ManualClock clock = protocol.clock();
    private final EveryEvent events = new EveryEvent();
    private final List<Duration> sleeps = protocol.sleeps();

    @BeforeEach
    void setUp() {
        table = new SlotTable(protocol.db());
    }

    private SlotProtocol owner(SlotStore on, int maxSlots) {
        return protocol.node(A).maxSlots(maxSlots).on(on).listener(events).build();
    }

    /** An owner with fast failover: it pauses its robots at its late point and resumes them on a timely renewal. */
    private SlotProtocol pausingOwner() {
        return protocol.node(A)
                .bound()
                .listener(events)
                .fastFailover(new ScriptedProbe())
                .build();
    }

    @Test
    void aNodeThatReleasedItsSlotsClaimsNothingMore() throws Exception {
        table.init(1);
        SlotProtocol a = owner(protocol.store(), 2);
        assertEquals(1, a.poll());

        a.releaseAll();
        table.init(2);

        assertEquals(0, a.poll(), "neither its released slot nor a new one");
        assertTrue(protocol.slot("slot-0").released());
        assertTrue(protocol.slot("slot-1").released());
        assertEquals(List.of(), a.leases());
    }

    @Test
    void aLeaseThatFencesItselfWhileItsWorkStopsIsStillReleasedSoNoStandbyWaitsOutTheLease() throws Exception {
        table.init(1);
        SlotProtocol a = owner(protocol.store(), 1);
        assertEquals(1, a.poll());
        // The robots take longer to stop than the lease has left: the fence thread ends the lease meanwhile.
        events.onReleasing = lease -> {
            clock.tick(TIMING.lease());
            a.checkFences();
        };

        a.releaseAll();

        assertEquals(
                List.of("releasing slot-0@1", "lost slot-0@1 FENCED"),
                events.lines.subList(2, events.lines.size()),
                "one loss, the fence's");
        SlotView released = protocol.slot("slot-0");
        assertTrue(released.released(), "still this lease's in the database: released for the standby");
        assertEquals(1, released.epoch());
    }

    @Test
    void aReleaseWithNoAnswerStillEndsTheLeaseAndLeavesTheSlotToExpire() throws Exception {
        table.init(1);
        FailingSlotStore failing = new FailingSlotStore(protocol.store());
        SlotProtocol a = owner(failing, 1);
        assertEquals(1, a.poll());
        failing.fail(FailingSlotStore.Call.RELEASE);

        a.releaseAll();

        assertEquals(
                List.of("releasing slot-0@1", "lost slot-0@1 RELEASED"), events.lines.subList(2, events.lines.size()));
        assertEquals(List.of(), a.leases());
        assertEquals(
                a.config().instance(),
                protocol.slot("slot-0").instance(),
                "the slot becomes claimable when its lease expires");
    }

    @Test
    void aPausedLeaseWhoseWorkIsStoppingNeverResumesThoughItsRenewalsGoOn() throws Exception {
        table.init(1);
        SlotProtocol a = pausingOwner();
        assertEquals(1, a.poll());
        clock.tick(TIMING.late());
        a.checkFences();
        assertEquals(List.of("claimed slot-0 WON", "acquired slot-0@1", "paused slot-0@1"), events.lines);
        // The renewal thread goes on while the listener stops the robots; its answer comes in time.
        events.onReleasing = lease -> a.renewAll();

        a.releaseAll();

        assertEquals(
                List.of("releasing slot-0@1", "renewed slot-0@1", "lost slot-0@1 RELEASED"),
                events.lines.subList(3, events.lines.size()),
                "renewed, but the robots stay paused on the way out");
        assertNull(protocol.slot("slot-0").owner());
    }

    @Test
    void aGracefulStopWithNothingHeldWritesNothing() throws Exception {
        table.init(1);
        SlotProtocol a = owner(protocol.store(), 1);
        a.stopClaiming();
        a.poll();
        Instant before = protocol.slot("slot-0").time();

        a.releaseAll();

        assertEquals(List.of(), events.lines);
        assertEquals(before, protocol.slot("slot-0").time());
        assertEquals(NodeState.STANDBY, a.state());
    }

    @Test
    void aNodeTakesBackItsOwnUnknownSlotOnlyWhileItClaims() throws Exception {
        table.init(1);
        SlotProtocol a = owner(protocol.store(), 1);
        // A claim that landed but whose answer was lost; then the node stops claiming (a graceful stop began).
        assertTrue(protocol.store()
                .claim(
                        protocol.slot("slot-0"),
                        new SlotStore.Ownership(A, a.config().instance(), TIMING.lease())));
        a.stopClaiming();

        assertEquals(0, a.poll());

        assertTrue(
                protocol.slot("slot-0").released(), "released for a standby rather than held by a node on its way out");
        assertEquals(List.<Lease>of(), a.leases());
    }
}
