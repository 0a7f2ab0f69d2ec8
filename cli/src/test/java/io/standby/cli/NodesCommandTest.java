package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.NodeRegistry;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code standby nodes} and {@code standby node drain} against the test database, with the registry documents nodes
 * write.
 */
class NodesCommandTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;
    private MongoNodeRegistry registry;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
        registry = new MongoNodeRegistry(admin.database());
    }

    private CliRun run(String... args) {
        return CliRun.against(db, args);
    }

    private void register(String ip, NodeState state, List<String> slots) {
        registry.write(
                new NodeRegistry.NodeRecord(
                        new NodeId(ip, 7700),
                        "1-a@host:1:1",
                        "host:1:1",
                        state,
                        slots,
                        2,
                        slots.size() * 3,
                        0,
                        0.25,
                        0.5,
                        40,
                        "0.1.0",
                        Duration.ofSeconds(10),
                        List.of("counter")),
                NodeRegistry.Write.FIRST);
    }

    @Test
    void nodesShowsOwnersStandbysAndOfflineNodesAtAGlance() {
        assertTrue(run("nodes").out().contains("No nodes."));
        register("10.0.0.1", NodeState.OWNER, List.of("slot-0", "slot-1"));
        register("10.0.0.2", NodeState.STANDBY, List.of());
        register("10.0.0.3", NodeState.STANDBY, List.of());
        admin.database()
                .getCollection(MongoNodeRegistry.COLLECTION)
                .updateOne(
                        new Document("_id", "10.0.0.3:7700"),
                        new Document("$set", new Document("time", new Date(System.currentTimeMillis() - 60_000))));

        CliRun nodes = run("nodes");

        assertEquals(0, nodes.exitCode(), nodes.err());
        List<String> lines = nodes.out().strip().lines().toList();
        assertEquals(4, lines.size(), nodes.out());
        assertTrue(
                lines.get(1)
                        .matches("10\\.0\\.0\\.1:7700\\s+owner\\s+slot-0,slot-1 \\(of "
                                + "2\\)\\s+6\\s+0\\s+40\\s+25%\\s+50%\\s+0\\.1\\.0.*\\s+counter"),
                lines.get(1));
        assertTrue(lines.get(2).matches("10\\.0\\.0\\.2:7700\\s+standby\\s+-\\s+0.*"), lines.get(2));
        assertTrue(lines.get(3).matches("10\\.0\\.0\\.3:7700\\s+offline\\s+.*"), lines.get(3));
    }

    @Test
    void drainAsksTheNodeOnceAndRefusesUnknownOfflineAndAlreadyDrainingNodes() {
        register("10.0.0.1", NodeState.OWNER, List.of("slot-0"));

        CliRun drained = run("node", "drain", "10.0.0.1:7700");
        assertEquals(0, drained.exitCode(), drained.err());
        assertTrue(drained.out().contains("Asked 10.0.0.1:7700 to drain"), drained.out());
        assertTrue(new NodeTable(admin)
                .get(new NodeId("10.0.0.1", 7700))
                .orElseThrow()
                .drain());
        assertTrue(run("nodes").out().contains("drain requested"));

        CliRun again = run("node", "drain", "10.0.0.1:7700");
        assertEquals(1, again.exitCode());
        assertEquals("standby: node 10.0.0.1:7700 is already draining", again.errorLine());

        CliRun unknown = run("node", "drain", "10.0.0.9:7700");
        assertEquals(1, unknown.exitCode());
        assertEquals("standby: unknown node '10.0.0.9:7700' (nodes: 10.0.0.1:7700)", unknown.errorLine());

        CliRun malformed = run("node", "drain", "nonsense");
        assertEquals(2, malformed.exitCode(), "a usage error");
        assertTrue(malformed.errorLine().contains("nonsense"), malformed.errorLine());

        register("10.0.0.2", NodeState.STANDBY, List.of());
        admin.database()
                .getCollection(MongoNodeRegistry.COLLECTION)
                .updateOne(
                        new Document("_id", "10.0.0.2:7700"),
                        new Document("$set", new Document("time", new Date(System.currentTimeMillis() - 60_000))));
        CliRun offline = run("node", "drain", "10.0.0.2:7700");
        assertEquals(1, offline.exitCode());
        assertTrue(offline.errorLine().contains("is offline"), offline.errorLine());
        assertFalse(
                new NodeTable(admin)
                        .get(new NodeId("10.0.0.2", 7700))
                        .orElseThrow()
                        .drain(),
                "nothing changed");
    }

    /** Makes {@code ip}'s node (as {@link #register} writes it) hold {@code slot} with a live lease. */
    private void hold(String ip, String slot) {
        admin.database()
                .getCollection("slots")
                .updateOne(
                        new Document("_id", slot),
                        new Document(
                                "$set",
                                new Document("ip", ip)
                                        .append("port", 7700)
                                        .append("instance", "1-a@host:1:1")
                                        .append("epoch", 1L)
                                        .append("lease", 60_000L)
                                        .append("time", new Date())));
    }

    @Test
    void drainRefusesANodeWhoseSlotsHaveNowhereToGoUnlessForced() {
        new SlotTable(admin).init(4);
        register("10.0.0.1", NodeState.OWNER, List.of("slot-0", "slot-1"));
        register("10.0.0.2", NodeState.OWNER, List.of("slot-2", "slot-3"));
        hold("10.0.0.1", "slot-0");
        hold("10.0.0.1", "slot-1");
        hold("10.0.0.2", "slot-2");
        hold("10.0.0.2", "slot-3");
        NodeId full = new NodeId("10.0.0.1", 7700);

        CliRun refused = run("node", "drain", "10.0.0.1:7700");
        assertEquals(1, refused.exitCode(), refused.out());
        assertEquals(
                "standby: cannot drain 10.0.0.1:7700: it holds 2 slots and the other live nodes have room for 0; "
                        + "start a node with room, or use --force to release them anyway",
                refused.errorLine());
        assertEquals("", refused.out());
        assertFalse(new NodeTable(admin).get(full).orElseThrow().drain(), "nothing written");
        assertEquals(
                null, new MongoSlotStore(admin).read("slot-0").orElseThrow().drain());

        CliRun forced = run("node", "drain", "10.0.0.1:7700", "--force");
        assertEquals(0, forced.exitCode(), forced.err());
        assertTrue(
                forced.out()
                        .contains("Asked 10.0.0.1:7700 to drain, forced: it hands its 2 slot(s) over even with "
                                + "nowhere to go"),
                forced.out());
        assertTrue(new NodeTable(admin).get(full).orElseThrow().drain());
        assertEquals(
                new SlotView.Drain("1-a@host:1:1", true),
                new MongoSlotStore(admin).read("slot-0").orElseThrow().drain());
    }

    @Test
    void aNodeWithoutItsIdentityIsAUsageError() {
        CliRun run = run("node", "--port", "7700");
        assertEquals(2, run.exitCode());
        assertTrue(run.errorLine().contains("Missing required options: '--ip=IP'"), run.errorLine());
    }
}
