package io.standby.slot.internal;

import io.standby.slot.Lease;
import io.standby.slot.ManualClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A graceful stop: the node claims nothing more, its listener stops each slot's work while renewals go
 * on, then each slot is released for a standby to take at once. A lease that fenced itself meanwhile is
 * released all the same; a release with no answer leaves the slot to expire.
 */
class SlotProtocolReleaseTest {

    private static final SlotTiming TIMING = SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(1));
    private static final NodeId A = new NodeId("127.0.0.1", 7001);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private MongoSlotStore store;
    private SlotTable table;
    private final ManualClock clock = new ManualClock();
    private final EveryEvent events = new EveryEvent();
    private final List<Duration> sleeps = new ArrayList<>();

    @BeforeEach
    void setUp() {
        StandbyDatabase db = database.connection();
        store = new MongoSlotStore(db);
        table = new SlotTable(db);
    }

    private SlotProtocol owner(SlotStore on, int maxSlots) {
        return new SlotProtocol(ProtocolSetup.of(on, new NodeConfig(A, maxSlots, TIMING, NodeConfig.newInstanceId()),
                clock, events)
                .withSleeper(sleeps::add));
    }

    /** An owner with fast failover: it pauses its robots at its late point and resumes them on a timely renewal. */
    private SlotProtocol pausingOwner() {
        NodeConfig config = new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId(), true);
        return new SlotProtocol(ProtocolSetup.of(store, config, clock, events)
                .withSleeper(sleeps::add)
                .withFastFailover(new GoneOwners(new ScriptedProbe(), sleeps::add, clock, Duration.ofMillis(100), GoneOwners.GAP)));
    }

    private SlotView slot(String id) {
        return store.read(id).orElseThrow();
    }

    @Test
    void aNodeThatReleasedItsSlotsClaimsNothingMore() throws Exception {
        table.init(1);
        SlotProtocol a = owner(store, 2);
        assertEquals(1, a.poll());

        a.releaseAll();
        table.init(2);

        assertEquals(0, a.poll(), "neither its released slot nor a new one");
        assertTrue(slot("slot-0").released());
        assertTrue(slot("slot-1").released());
        assertEquals(List.of(), a.leases());
    }

    @Test
    void aLeaseThatFencesItselfWhileItsWorkStopsIsStillReleasedSoNoStandbyWaitsOutTheLease() throws Exception {
        table.init(1);
        SlotProtocol a = owner(store, 1);
        assertEquals(1, a.poll());
        // The robots take longer to stop than the lease has left: the fence thread ends the lease meanwhile.
        events.onReleasing = lease -> {
            clock.tick(TIMING.lease());
            a.checkFences();
        };

        a.releaseAll();

        assertEquals(List.of("releasing slot-0@1", "lost slot-0@1 FENCED"), events.lines.subList(2, events.lines.size()),
                "one loss, the fence's");
        SlotView released = slot("slot-0");
        assertTrue(released.released(), "still this lease's in the database: released for the standby");
        assertEquals(1, released.epoch());
    }

    @Test
    void aReleaseWithNoAnswerStillEndsTheLeaseAndLeavesTheSlotToExpire() throws Exception {
        table.init(1);
        FailingSlotStore failing = new FailingSlotStore(store);
        SlotProtocol a = owner(failing, 1);
        assertEquals(1, a.poll());
        failing.fail(FailingSlotStore.Call.RELEASE);

        a.releaseAll();

        assertEquals(List.of("releasing slot-0@1", "lost slot-0@1 RELEASED"), events.lines.subList(2, events.lines.size()));
        assertEquals(List.of(), a.leases());
        assertEquals(a.config().instance(), slot("slot-0").instance(), "the slot becomes claimable when its lease expires");
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

        assertEquals(List.of("releasing slot-0@1", "renewed slot-0@1", "lost slot-0@1 RELEASED"),
                events.lines.subList(3, events.lines.size()), "renewed, but the robots stay paused on the way out");
        assertNull(slot("slot-0").owner());
    }

    @Test
    void aGracefulStopWithNothingHeldWritesNothing() throws Exception {
        table.init(1);
        SlotProtocol a = owner(store, 1);
        a.stopClaiming();
        a.poll();
        Instant before = slot("slot-0").time();

        a.releaseAll();

        assertEquals(List.of(), events.lines);
        assertEquals(before, slot("slot-0").time());
        assertEquals(NodeState.STANDBY, a.state());
    }

    @Test
    void aNodeTakesBackItsOwnUnknownSlotOnlyWhileItClaims() throws Exception {
        table.init(1);
        SlotProtocol a = owner(store, 1);
        // A claim that landed but whose answer was lost; then the node stops claiming (a graceful stop began).
        assertTrue(store.claim(slot("slot-0"), new SlotStore.Ownership(A, a.config().instance(), TIMING.lease())));
        a.stopClaiming();

        assertEquals(0, a.poll());

        assertTrue(slot("slot-0").released(), "released for a standby rather than held by a node on its way out");
        assertEquals(List.<Lease>of(), a.leases());
    }
}
