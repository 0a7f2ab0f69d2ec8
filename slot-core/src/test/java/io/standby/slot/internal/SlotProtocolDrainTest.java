package io.standby.slot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.Lease;
import io.standby.slot.ManualClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whose drain a drain request is: the instance it names, and only a node that takes part in a membership
 * (without a registry no room can be judged). A drained node is one that was asked to drain and has seen
 * its last slot taken; a node never asked is never drained, however few slots it holds.
 */
class SlotProtocolDrainTest {

    private static final SlotTiming TIMING = SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(1));
    private static final NodeId A = new NodeId("127.0.0.1", 7001);
    private static final NodeId B = new NodeId("127.0.0.1", 7002);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private StandbyDatabase db;
    private MongoSlotStore store;
    private MongoCollection<Document> slots;
    private final ManualClock clock = new ManualClock();

    @BeforeEach
    void setUp() {
        db = database.connection();
        store = new MongoSlotStore(db);
        slots = db.database().getCollection("slots");
    }

    private SlotProtocol member(NodeId id, int maxSlots, String instance, boolean bound) {
        NodeConfig config = new NodeConfig(id, maxSlots, TIMING, instance, bound);
        return new SlotProtocol(ProtocolSetup.of(store, config, clock, new EveryEvent())
                .withSleeper(d -> { })
                .withMembership(new MongoNodeRegistry(db.database())));
    }

    private SlotProtocol member(NodeId id, int maxSlots) {
        return member(id, maxSlots, NodeConfig.newInstanceId(), false);
    }

    private SlotView slot(String id) {
        return store.read(id).orElseThrow();
    }

    @Test
    void aNodeNeverAskedToDrainIsNeverDrained() throws Exception {
        new SlotTable(db).init(1);
        SlotProtocol a = member(A, 1);
        SlotProtocol b = member(B, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());

        assertFalse(b.draining());
        assertFalse(b.drained(), "a standby that holds nothing may not stop for it");
        assertFalse(a.drained());
        assertEquals(NodeState.STANDBY, b.state());
    }

    @Test
    void aDrainedNodeHasSeenItsLastSlotTakenBeforeItMayStop() throws Exception {
        new SlotTable(db).init(1);
        SlotProtocol a = member(A, 1);
        SlotProtocol b = member(B, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        new NodeTable(db).drain(A);

        a.poll();
        assertTrue(slot("slot-0").released(), "handed over");
        assertEquals(List.of(), a.leases());
        assertFalse(a.drained(), "nobody has taken it yet: stopping now could leave it unserved unnoticed");

        assertEquals(1, b.poll());
        a.poll();
        assertTrue(a.drained());
        assertEquals(NodeState.DRAINING, a.state());
    }

    @Test
    void aDrainTakesItsNodeOutOfThePlansBeforeItsFirstRelease() throws Exception {
        new SlotTable(db).init(1);
        MongoNodeRegistry registry = new MongoNodeRegistry(db.database());
        List<NodeState> registeredWhenReleasing = new ArrayList<>();
        SlotListener listener = new SlotListener() {
            @Override
            public void releasing(Lease lease) {
                registry.readAll().stream().filter(node -> node.id().equals(A)).forEach(node -> registeredWhenReleasing.add(node.state()));
            }
        };
        SlotProtocol a = new SlotProtocol(ProtocolSetup.of(store, new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId()), clock, listener)
                .withSleeper(d -> { })
                .withMembership(registry));
        SlotProtocol b = member(B, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        // Asked on its slot only, so that the poll that sees the request is the one that releases.
        assertEquals(1, store.markDrain(A, a.config().instance(), false));

        a.poll();

        assertTrue(slot("slot-0").released(), "handed over in the poll that saw the request");
        assertEquals(List.of(NodeState.DRAINING), registeredWhenReleasing,
                "a standby planning meanwhile must not count the draining node as a place for the slot");
    }

    @Test
    void aDrainingNodeClaimsNothingEvenWhereItHasRoom() throws Exception {
        new SlotTable(db).init(1);
        SlotProtocol a = member(A, 2);
        SlotProtocol b = member(B, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        new NodeTable(db).drain(A);
        a.poll();
        new SlotTable(db).init(2);

        clock.tick(TIMING.poll());
        assertEquals(0, a.poll());
        assertTrue(slot("slot-1").released(), "the new slot is left for others");
    }

    @Test
    void aDrainAskedOfTheProcessBeforeARestartIsNotTheRestartedOnes() throws Exception {
        new SlotTable(db).init(1);
        SlotProtocol before = member(A, 1, NodeConfig.newInstanceId(), true);
        SlotProtocol standby = member(B, 1);
        assertEquals(1, before.poll());
        assertEquals(0, standby.poll());
        assertEquals(1, store.markDrain(A, before.config().instance(), true));

        // The process dies before it sees the request; its restart binds the address and takes its slot back.
        SlotProtocol after = member(A, 1, NodeConfig.newInstanceId(), true);
        after.join();
        assertEquals(1, after.poll());
        assertEquals(after.config().instance(), slot("slot-0").instance());
        clock.tick(TIMING.poll());
        after.poll();

        assertFalse(after.draining(), "the request named the earlier instance");
        assertEquals(A, slot("slot-0").owner());
    }

    @Test
    void aNodeWithoutAMembershipIgnoresADrainRequestOnItsSlots() throws Exception {
        new SlotTable(db).init(1);
        SlotProtocol a = new SlotProtocol(ProtocolSetup.of(store, new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId()),
                clock, new EveryEvent())
                .withSleeper(d -> { }));
        assertEquals(1, a.poll());
        slots.updateOne(Filters.eq("_id", "slot-0"),
                Updates.set("drain", new Document("instance", a.config().instance()).append("force", true)));

        a.poll();

        assertFalse(a.draining(), "no registry, no room to judge: the request is not for it");
        assertEquals(A, slot("slot-0").owner());
    }

    @Test
    void aStandbyAskedToDrainSeesItAtItsNextRegistryWriteAndIsDrainedAtOnce() throws Exception {
        new SlotTable(db).init(1);
        SlotProtocol a = member(A, 1);
        SlotProtocol b = member(B, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        new NodeTable(db).drain(B);

        clock.tick(TIMING.heartbeat().multipliedBy(SlotProtocol.REGISTRY_WRITE_HEARTBEATS));
        b.poll();

        assertTrue(b.draining());
        assertTrue(b.drained(), "nothing to hand over: it may stop");
        assertEquals(NodeState.DRAINING, b.state());
        new SlotTable(db).init(2);
        clock.tick(TIMING.poll());
        assertEquals(0, b.poll(), "and claims nothing meanwhile");
    }

    @Test
    void aDrainThatCannotReadTheSlotsAgainToJudgeRoomKeepsServingItsSlot() throws Exception {
        new SlotTable(db).init(1);
        // The poll's read succeeds; the second read, the one that counts every slot the registry's nodes hold, fails.
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        FailingSlotStore everySecondReadFails = new FailingSlotStore(store) {
            @Override
            public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
                if (reads.incrementAndGet() % 2 == 0) {
                    throw new IllegalStateException("connection lost");
                }
                return super.poll(me, lateBefore, free);
            }
        };
        SlotProtocol a = new SlotProtocol(ProtocolSetup.of(everySecondReadFails,
                new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId()),
                clock, new EveryEvent())
                .withSleeper(d -> { })
                .withMembership(new MongoNodeRegistry(db.database())));
        SlotProtocol b = member(B, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        new NodeTable(db).drain(A);
        reads.set(0);

        clock.tick(TIMING.poll());
        a.poll();

        assertTrue(a.draining());
        assertEquals(A, slot("slot-0").owner(), "room unknown: no room, as far as this node can tell");
        assertFalse(a.drained());
    }
}
