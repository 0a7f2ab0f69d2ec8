package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.FreshDatabase;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry on the wire server: what a plan reads of it, and that it agrees with what `standby nodes` shows. */
class MongoNodeRegistryTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = FreshDatabase.perTest();

    private StandbyDatabase db;
    private MongoNodeRegistry registry;

    @BeforeEach
    void setUp() {
        db = database.connection();
        registry = new MongoNodeRegistry(db.database());
    }

    private void write(int port, NodeState state, int maxSlots, int load) {
        registry.write(
                new NodeRegistry.NodeRecord(
                        new NodeId("10.0.0.1", port),
                        port + "-i@h",
                        "h",
                        state,
                        List.of(),
                        maxSlots,
                        0,
                        0,
                        0.5,
                        0.1,
                        load,
                        "dev",
                        Duration.ofSeconds(10),
                        List.of("counter")),
                NodeRegistry.Write.FIRST);
    }

    @Test
    void aSweepRemovesOnlyNodesNotSeenForLongByTheServersClock() {
        write(7001, NodeState.STANDBY, 1, 0);
        write(7002, NodeState.STANDBY, 1, 0);
        db.database()
                .getCollection(MongoNodeRegistry.COLLECTION)
                .updateOne(
                        Filters.eq("_id", "10.0.0.1:7002"),
                        Updates.set("time", Date.from(Instant.now().minus(Duration.ofMinutes(11)))));

        assertEquals(1, registry.sweep(Duration.ofMinutes(10)));
        assertEquals(
                List.of(new NodeId("10.0.0.1", 7001)),
                registry.readAll().stream().map(io.standby.slot.NodeView::id).toList());
    }

    @Test
    void thePlanReadsOnlyLiveNodesThatAreNotDrainingAndAgreesWithTheFullRead() {
        write(7001, NodeState.STANDBY, 3, 42);
        write(7002, NodeState.OWNER, 1, 77);
        write(7003, NodeState.DRAINING, 1, 0);
        write(7004, NodeState.STANDBY, 1, 0);
        registry.requestDrain(new NodeId("10.0.0.1", 7004));
        write(7005, NodeState.STANDBY, 1, 0);
        // Not written for 31 s, with a 10 s interval: offline.
        db.database()
                .getCollection(MongoNodeRegistry.COLLECTION)
                .updateOne(
                        Filters.eq("_id", "10.0.0.1:7005"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(31))));

        List<ClaimPlan.Member> live = registry.readLive();
        assertEquals(
                List.of("counter"),
                registry.readAll().getFirst().types(),
                "the robot types a node can run, for 'robot add'");

        assertEquals(
                Set.of(
                        new ClaimPlan.Member(new NodeId("10.0.0.1", 7001), 42, 3),
                        new ClaimPlan.Member(new NodeId("10.0.0.1", 7002), 77, 1)),
                Set.copyOf(live));
        NodeRegistry fullRead = new NodeRegistry() {
            @Override
            public List<io.standby.slot.NodeView> readAll() {
                return registry.readAll();
            }

            @Override
            public boolean write(NodeRecord node, Write write) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void remove(NodeId node, String instance) {
                throw new UnsupportedOperationException();
            }

            @Override
            public long sweep(Duration olderThan) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean requestDrain(NodeId node) {
                throw new UnsupportedOperationException();
            }
        };
        assertEquals(Set.copyOf(fullRead.readLive()), Set.copyOf(live), "the slim read and the full one agree");
        assertEquals(
                Set.of(7003, 7004, 7005),
                registry.readAll().stream()
                        .filter(n -> !live.stream().anyMatch(m -> m.id().equals(n.id())))
                        .map(n -> n.id().port())
                        .collect(Collectors.toSet()),
                "the others are still shown by the full read");
    }
}
