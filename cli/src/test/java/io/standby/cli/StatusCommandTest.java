package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.NodeRegistry;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code standby status}: one screen of slots, nodes and robots not running; as JSON; and --watch as a real process.
 */
class StatusCommandTest {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
    }

    /** Two slots, slot-0 owned by 10.0.0.1:7700 with a running and a failed robot; a standby; nothing on slot-1. */
    private void cluster() {
        new SlotTable(admin).init(2);
        TestSlots.ownedByTenZeroZeroOne(admin, "slot-0");
        RobotTable robots = new RobotTable(admin);
        robots.add(new RobotTable.NewRobot("ok1", "counter", "slot-0", 0, 1.0, new Document()), OptionalDouble.empty());
        robots.add(
                new RobotTable.NewRobot("bad1", "counter", "slot-0", 0, 1.0, new Document()), OptionalDouble.empty());
        admin.database().getCollection("robots").updateOne(Filters.eq("_id", "ok1"), Updates.set("state", "RUNNING"));
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "bad1"),
                        Updates.combine(
                                Updates.set("state", "FAILED"),
                                Updates.set("lastError", "java.lang.IllegalStateException: boom\n\tat x")));
        MongoNodeRegistry registry = new MongoNodeRegistry(admin.database());
        registry.write(
                new NodeRegistry.NodeRecord(
                        new NodeId("10.0.0.1", 7700),
                        "1-a@h:1:1",
                        "h:1:1",
                        NodeState.OWNER,
                        List.of("slot-0"),
                        1,
                        1,
                        1,
                        0.1,
                        0.1,
                        40,
                        "0.1.0",
                        Duration.ofSeconds(20),
                        List.of("counter")),
                NodeRegistry.Write.FIRST);
        registry.write(
                new NodeRegistry.NodeRecord(
                        new NodeId("10.0.0.2", 7700),
                        "2-b@h:2:2",
                        "h:2:2",
                        NodeState.STANDBY,
                        List.of(),
                        1,
                        0,
                        0,
                        0.1,
                        0.1,
                        7,
                        "0.1.0",
                        Duration.ofSeconds(20),
                        List.of("counter")),
                NodeRegistry.Write.FIRST);
    }

    @Test
    void oneScreenShowsOwnersStandbysAndWhatIsNotRunning() {
        cluster();
        CliRun run = CliRun.against(db, "status");
        assertEquals(0, run.exitCode(), run.err());
        List<String> lines = run.out().lines().toList();
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.matches(
                                "\\s+slot-0\\s+10\\.0\\.0\\.1:7700\\s+1\\s+\\S+s\\s+1m\\s+1 running, 1 failed")),
                run.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\s+slot-1\\s+free\\s+0\\s+-\\s+-\\s+none")), run.out());
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.matches("  owning slots: 10\\.0\\.0\\.1:7700 \\(load 40, seen \\S+ ago\\)")),
                run.out());
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.matches("  standing by: 10\\.0\\.0\\.2:7700 \\(load 7, seen \\S+ ago\\)")),
                run.out());
        assertTrue(lines.contains("Not running (1 of 2):"), run.out());
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.matches(
                                "bad1\\s+slot-0\\s+FAILED\\s+running\\s+java.lang.IllegalStateException: boom")),
                run.out());
    }

    @Test
    void jsonIsOneSnapshotForScripts() {
        cluster();
        Document status = Document.parse(CliRun.against(db, "status", "--json").out());
        List<Document> slots = status.getList("slots", Document.class);
        assertEquals(
                List.of("slot-0", "slot-1"),
                slots.stream().map(s -> s.getString("id")).toList());
        assertEquals("10.0.0.1:7700", slots.getFirst().getString("owner"));
        assertEquals(
                new Document("RUNNING", 1).append("FAILED", 1), slots.getFirst().get("robots", Document.class));
        assertEquals(
                List.of("OWNER", "STANDBY"),
                status.getList("nodes", Document.class).stream()
                        .map(n -> n.getString("state"))
                        .toList());
        Document robots = status.get("robots", Document.class);
        assertEquals(2, robots.getInteger("total"));
        assertEquals(
                "bad1", robots.getList("notRunning", Document.class).getFirst().getString("id"));
        assertEquals(
                "java.lang.IllegalStateException: boom\n\tat x",
                robots.getList("notRunning", Document.class).getFirst().getString("lastError"));
    }

    @Test
    void anEmptyDatabaseSaysWhatToDoAndBadOptionsAreUsageErrors() {
        CliRun run = CliRun.against(db, "status");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("No slots. Create them with: standby slots init --count 3"), run.out());
        assertTrue(run.out().contains("Nodes: none in the registry."), run.out());

        CliRun both = CliRun.against(db, "status", "--watch", "--json");
        assertEquals(2, both.exitCode());
        assertTrue(both.errorLine().contains("--watch and --json"), both.errorLine());
        CliRun fast = CliRun.against(db, "status", "--watch", "--interval", "10ms");
        assertEquals(2, fast.exitCode());
        assertTrue(fast.errorLine().contains("--interval 10ms"), fast.errorLine());
    }

    @Test
    void watchRedrawsMarksANewOwnerAndStopsCleanlyOnCtrlC() throws Exception {
        cluster();
        try (ChildJvm watch = StandbyProcess.start(
                dir,
                "status-watch",
                "status",
                "--watch",
                "--interval",
                "200ms",
                "--mongo",
                TestMongo.uri(),
                "--db",
                db)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> watch.output().split("standby status, ", -1).length > 2);
            assertFalse(watch.output().contains("* slot-0"), "nothing changed yet:\n" + watch.output());

            admin.database()
                    .getCollection("slots")
                    .updateOne(
                            Filters.eq("_id", "slot-0"),
                            Updates.combine(
                                    Updates.set("ip", "10.0.0.2"),
                                    Updates.inc("epoch", 1L),
                                    Updates.currentDate("time")));
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            watch.output().lines().anyMatch(l -> l.matches("\\*\\s+slot-0\\s+10\\.0\\.0\\.2:7700.*")));

            watch.signal("INT");
            assertEquals(130, watch.awaitExit(Duration.ofSeconds(30)), "the exit code of Ctrl-C");
            String output = watch.output();
            assertFalse(
                    output.contains("\tat ") || output.contains("Exception in") || output.contains(" ERROR ["), output);
        }
    }
}
