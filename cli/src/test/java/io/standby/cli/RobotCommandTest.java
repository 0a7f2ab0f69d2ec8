package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.NodeRegistry;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code standby robot ...} in this JVM against the test database, with no node running: what each command stores, what
 * it prints, and that bad input changes nothing.
 */
class RobotCommandTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;
    private RobotTable robots;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
        new SlotTable(admin).init(2);
        robots = new RobotTable(admin);
    }

    private CliRun run(String... args) {
        return CliRun.against(db, args);
    }

    /** Runs a command that must succeed, and returns what it printed. */
    private String ok(String... args) {
        CliRun run = run(args);
        assertEquals(0, run.exitCode(), () -> String.join(" ", args) + " failed: " + run.err());
        return run.out();
    }

    private RobotView robot(String id) {
        return robots.get(id).orElseThrow(() -> new AssertionError("no robot " + id));
    }

    private Map<String, Long> countBySlot() {
        return robots.list(null).stream()
                .collect(Collectors.groupingBy(RobotView::slotId, TreeMap::new, Collectors.counting()));
    }

    private Map<String, Double> weightBySlot() {
        return robots.list(null).stream()
                .collect(Collectors.groupingBy(
                        RobotView::slotId, TreeMap::new, Collectors.summingDouble(RobotView::weight)));
    }

    // ---- add ----

    @Test
    void addWithAnExplicitSlotStoresAPendingRobotThere() {
        String out = ok(
                "robot",
                "add",
                "crawler-1",
                "--type",
                "counter",
                "--slot",
                "slot-1",
                "--priority",
                "5",
                "--weight",
                "2.5");

        assertEquals("Added crawler-1 (counter) to slot-1.", out.strip());
        RobotView r = robot("crawler-1");
        assertEquals("counter", r.type());
        assertEquals("slot-1", r.slotId());
        assertEquals(5, r.priority());
        assertEquals(2.5, r.weight());
        assertEquals(Desired.RUNNING, r.desired());
        assertEquals(RobotState.PENDING, r.state());
        assertNull(r.node());
        assertEquals(new Document(), r.config());
    }

    @Test
    void autoPlacementSpreadsFourRobotsTwoAndTwoOverTwoFreeSlots() {
        for (int i = 1; i <= 4; i++) {
            String out = ok("robot", "add", "r" + i, "--type", "counter");
            assertTrue(out.startsWith("Added r" + i + " (counter) to slot-"), out);
        }
        assertEquals(Map.of("slot-0", 2L, "slot-1", 2L), countBySlot());
    }

    @Test
    void autoPlacementWithACapacityFillsTheRoomThatIsLeft() {
        ok("robot", "add", "big", "--type", "counter", "--slot", "slot-0", "--weight", "3");
        ok("robot", "add", "a", "--type", "counter", "--capacity", "3");
        ok("robot", "add", "b", "--type", "counter", "--capacity", "3", "--weight", "2");

        assertEquals(Map.of("slot-0", 3.0, "slot-1", 3.0), weightBySlot());
    }

    @Test
    void configValuesAreStoredTyped() {
        ok(
                "robot",
                "add",
                "c1",
                "--type",
                "counter",
                "--config",
                "intervalMs=500",
                "--config",
                "ratio=0.25",
                "--config",
                "verbose=true",
                "--config",
                "name=crawler",
                "--config",
                "big=99999999999",
                "--config",
                "zip=007",
                "--config",
                "empty=",
                "--config",
                "url=http://x/?a=b");

        Document config = robot("c1").config();
        assertEquals(500, config.get("intervalMs"));
        assertEquals(0.25, config.get("ratio"));
        assertEquals(true, config.get("verbose"));
        assertEquals("crawler", config.get("name"));
        assertEquals(99999999999L, config.get("big"));
        assertEquals("007", config.get("zip"), "a leading zero keeps it text");
        assertEquals("", config.get("empty"));
        assertEquals("http://x/?a=b", config.get("url"), "only the first '=' separates key and value");
    }

    @Test
    void configJsonIsStoredAsADocumentAndKeyValueWinsOverIt() {
        ok(
                "robot",
                "add",
                "c1",
                "--type",
                "counter",
                "--config-json",
                "{\"urls\": [\"a\", \"b\"], \"limits\": {\"perHost\": 2}, \"intervalMs\": 100}",
                "--config",
                "intervalMs=250");

        Document config = robot("c1").config();
        assertEquals(List.of("a", "b"), config.get("urls"));
        assertEquals(new Document("perHost", 2), config.get("limits", Document.class));
        assertEquals(250, config.get("intervalMs"));
    }

    @Test
    void aTypeNoLiveNodeKnowsIsRefusedUnlessAllowedAndOneALiveNodeAdvertisesIsAccepted() {
        CliRun unknown = run("robot", "add", "x1", "--type", "mailer");
        assertEquals(2, unknown.exitCode(), unknown.err());
        assertEquals(
                "standby: unknown robot type 'mailer': neither built in nor known to a live node (known: counter); "
                        + "--allow-unknown-type adds it anyway (see 'standby robot add --help')",
                unknown.errorLine());
        assertEquals(0, admin.database().getCollection("robots").countDocuments(), "nothing added");

        String allowed = ok("robot", "add", "x1", "--type", "mailer", "--allow-unknown-type");
        assertTrue(allowed.contains("Note: 'mailer' is not a built-in type (counter)"), allowed);
        assertEquals("mailer", robot("x1").type());

        new MongoNodeRegistry(admin.database())
                .write(
                        new NodeRegistry.NodeRecord(
                                new NodeId("10.0.0.1", 7700),
                                "1-a@h:1:1",
                                "h:1:1",
                                NodeState.STANDBY,
                                List.of(),
                                1,
                                0,
                                0,
                                0,
                                0,
                                0,
                                "0.1.0",
                                Duration.ofSeconds(10),
                                List.of("counter", "mailer")),
                        NodeRegistry.Write.FIRST);
        ok("robot", "add", "x2", "--type", "mailer");
        assertEquals("mailer", robot("x2").type());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--config intervalMs=soon              | intervalMs 'soon' is not a number",
                "--config-json {\"intervalMs\":0}     | intervalMs 0 must be at least 1",
            })
    void aBuiltInTypeChecksItsConfigBeforeAnythingIsAdded(String option, String complaint) {
        String[] parts = option.trim().split(" ", 2);
        CliRun run = run("robot", "add", "c1", "--type", "counter", parts[0], parts[1].trim());
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.errorLine().contains("invalid config for a counter robot: " + complaint), run.errorLine());
        assertEquals(0, admin.database().getCollection("robots").countDocuments(), "nothing added");
    }

    // ---- list ----

    @Test
    void listShowsEveryRobotWithItsContext() {
        assertEquals("No robots.", ok("robot", "list").strip());
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0");
        ok("robot", "add", "r2", "--type", "counter", "--slot", "slot-1", "--weight", "2");
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "r1"),
                        Updates.combine(
                                Updates.set("context", new Document("count", 7).append("epoch", 3L)),
                                Updates.set("lastError", "java.lang.IllegalStateException: boom\n\tat somewhere")));
        admin.database()
                .getCollection("robots")
                .updateOne(Filters.eq("_id", "r2"), Updates.set("context", new Document("cursor", "x".repeat(100))));

        List<String> lines = ok("robot", "list").strip().lines().toList();
        assertEquals(4, lines.size(), String.join("\n", lines));
        assertEquals(
                "Long values are cut; 'standby robot show ID' shows a robot whole, -o wide every value.", lines.get(3));
        assertEquals(
                List.of(
                        "ROBOT",
                        "TYPE",
                        "SLOT",
                        "STATE",
                        "DESIRED",
                        "NODE",
                        "EPOCH",
                        "PRIORITY",
                        "WEIGHT",
                        "RESTARTS",
                        "CONTEXT",
                        "LAST",
                        "ERROR"),
                List.of(lines.get(0).split("\\s+")));
        assertTrue(
                lines.get(1)
                        .matches("r1\\s+counter\\s+slot-0\\s+PENDING\\s+running\\s+-\\s+0\\s+0\\s+1\\s+0\\s+"
                                + "\\{\"count\":7,\"epoch\":3}\\s+java.lang.IllegalStateException: b.*"),
                lines.get(1));
        assertFalse(lines.get(1).contains("somewhere"), "the last error is cut: " + lines.get(1));
        assertTrue(
                lines.get(2)
                        .matches("r2\\s+counter\\s+slot-1\\s+PENDING\\s+running\\s+-\\s+0\\s+0\\s+2\\s+0\\s+"
                                + "\\{\"cursor\":\"x+\\.\\.\\.\\s+-"),
                lines.get(2));

        String slot1 = ok("robot", "list", "--slot", "slot-1");
        assertTrue(slot1.contains("r2") && !slot1.contains("r1"), slot1);
    }

    @Test
    void showPrintsTheWholeRobotWithItsFullErrorAndTheStoredDocumentAsJson() {
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0", "--config", "intervalMs=250");
        String error = "java.lang.IllegalStateException: boom " + "y".repeat(200) + "\n\tat somewhere";
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "r1"),
                        Updates.combine(
                                Updates.set("context", new Document("count", 7).append("cursor", "x".repeat(100))),
                                Updates.set("lastError", error),
                                Updates.set("restarts", 3)));

        String shown = ok("robot", "show", "r1");
        assertTrue(
                shown.contains("  java.lang.IllegalStateException: boom " + "y".repeat(200) + "\n  \tat somewhere"),
                "the full error, every line:\n" + shown);
        assertTrue(shown.contains("\"cursor\": \"" + "x".repeat(100) + "\""), "the full context:\n" + shown);
        assertTrue(shown.contains("\"intervalMs\": 250"), "the config:\n" + shown);
        assertTrue(shown.lines().anyMatch(l -> l.matches("restarts\\s+3")), shown);
        assertTrue(shown.lines().anyMatch(l -> l.matches("slot\\s+slot-0")), shown);
        assertTrue(shown.contains("recent events (standby events --robot r1):\n  none"), shown);
        io.standby.slot.internal.EventLog events = new io.standby.slot.internal.EventLog(admin.database()).start();
        events.record(new Document("type", "robot-restarting")
                .append("slot", "slot-0")
                .append("epoch", 1L)
                .append("node", "10.0.0.1:7700")
                .append("robot", "r1")
                .append("detail", new Document("error", "java.lang.IllegalStateException: boom")));
        events.close(Duration.ofSeconds(10));
        assertTrue(
                ok("robot", "show", "r1")
                        .contains("robot r1 failed, restarting: java.lang.IllegalStateException: boom"),
                "its history");

        Document view = Document.parse(ok("robot", "show", "r1", "--json"));
        assertEquals("r1", view.getString("id"), "--json is the designed view, not the stored document");
        assertEquals(3, view.getInteger("restarts"));
        assertEquals(250, view.get("config", Document.class).getInteger("intervalMs"));
        assertEquals(1, view.getList("events", Document.class).size(), "its history");

        CliRun unknown = run("robot", "show", "nobody");
        assertEquals(1, unknown.exitCode());
        assertEquals("standby: unknown robot 'nobody'", unknown.errorLine());
    }

    // ---- move, stop, start, rm ----

    @Test
    void movingAnIdleRobotChangesItsSlotAtOnce() {
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0");

        assertEquals(
                "Moved r1 to slot-1 at once: nobody was running it.",
                ok("robot", "move", "r1", "--slot", "slot-1").strip());
        assertEquals("slot-1", robot("r1").slotId());
        assertNull(robot("r1").target());

        assertEquals(
                "r1 is already in slot-1; nothing to move.",
                ok("robot", "move", "r1", "--slot", "slot-1").strip());
        assertEquals("slot-1", robot("r1").slotId());
    }

    @Test
    void movingARunningRobotAsksItsNodeToHandItOver() {
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0");
        // As a node marks a robot it runs.
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "r1"),
                        Updates.combine(Updates.set("node", "127.0.0.1:7701"), Updates.set("state", "RUNNING")));

        String out = ok("robot", "move", "r1", "--slot", "slot-1");

        assertTrue(out.startsWith("r1 is running on 127.0.0.1:7701: its node stops it with a final checkpoint"), out);
        assertEquals("slot-0", robot("r1").slotId(), "it stays until its node hands it over");
        assertEquals("slot-1", robot("r1").target());
        assertTrue(ok("robot", "list").contains("slot-0->slot-1"));
    }

    @Test
    void stopStartAndRemoveChangeWhatIsWanted() {
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0");

        assertEquals("Stopped r1.", ok("robot", "stop", "r1").strip());
        assertEquals(Desired.STOPPED, robot("r1").desired());
        assertEquals(RobotState.STOPPED, robot("r1").state(), "nobody runs it, so it is stopped now");

        assertEquals(
                "Started r1: the owner of slot-0 runs it within one poll.",
                ok("robot", "start", "r1").strip());
        assertEquals(Desired.RUNNING, robot("r1").desired());

        assertEquals("Removed r1 and its context.", ok("robot", "rm", "r1").strip());
        assertTrue(robots.get("r1").isEmpty());
    }

    @Test
    void stoppingARunningRobotLeavesTheStopToItsNode() {
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0");
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "r1"),
                        Updates.combine(Updates.set("node", "127.0.0.1:7701"), Updates.set("state", "RUNNING")));

        String out = ok("robot", "stop", "r1");

        assertTrue(out.startsWith("Stopping r1: its node (127.0.0.1:7701) lets it checkpoint"), out);
        assertEquals(Desired.STOPPED, robot("r1").desired());
        assertEquals(RobotState.RUNNING, robot("r1").state(), "the node records STOPPED once the robot has stopped");
    }

    // ---- rebalance ----

    @Test
    void rebalanceDryRunPrintsTheMovesAndChangesNothing() {
        for (int i = 1; i <= 4; i++) {
            ok("robot", "add", "r" + i, "--type", "counter", "--slot", "slot-0");
        }
        List<RobotView> before = robots.list(null);

        List<String> lines =
                ok("robot", "rebalance", "--dry-run").strip().lines().toList();

        assertEquals(3, lines.size(), String.join("\n", lines));
        for (String move : lines.subList(0, 2)) {
            assertTrue(move.matches("r\\d\\s+slot-0 -> slot-1\\s+\\(weight 1\\)"), move);
        }
        assertEquals("Dry run: 2 move(s) would even out the load; nothing changed.", lines.get(2));
        assertEquals(before, robots.list(null));
    }

    @Test
    void rebalanceEvensOutTheWeightWithTheFewestMoves() {
        ok("robot", "add", "big", "--type", "counter", "--slot", "slot-0", "--weight", "3");
        for (int i = 1; i <= 3; i++) {
            ok("robot", "add", "r" + i, "--type", "counter", "--slot", "slot-0");
        }

        List<String> lines = ok("robot", "rebalance").strip().lines().toList();

        assertEquals(2, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).matches("big\\s+slot-0 -> slot-1\\s+\\(weight 3\\)"), lines.get(0));
        assertEquals(Map.of("slot-0", 3.0, "slot-1", 3.0), weightBySlot());
        assertEquals("Already balanced.", ok("robot", "rebalance").strip());
    }

    // ---- bad input ----

    /** Bad input: one line naming the value, a non-zero exit, no stack trace, and no robot changed. */
    private void assertRejected(List<String> args, String mention) {
        ok("robot", "add", "r1", "--type", "counter", "--slot", "slot-0", "--config", "intervalMs=100");
        List<RobotView> before = robots.list(null);

        CliRun run = run(args.toArray(String[]::new));

        assertNotEquals(0, run.exitCode(), "exit code");
        String line = run.errorLine();
        assertFalse(line.contains("Exception") || line.contains("\tat "), "no stack trace: " + line);
        assertTrue(line.contains(mention), "'" + line + "' should mention " + mention);
        assertEquals(before, robots.list(null), "the robots changed");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "robot add r2 --type counter --slot slot-9                | slot-9",
                "robot add r1 --type counter                              | r1",
                "robot add b/d --type counter                             | b/d",
                "robot add r2 --type counter --weight 0                   | --weight 0",
                "robot add r2 --type counter --weight -1                  | --weight -1",
                "robot add r2 --type counter --weight heavy               | heavy",
                "robot add r2 --type counter --capacity 0.5               | --capacity 0.5",
                "robot add r2 --type counter --capacity 0                 | --capacity 0",
                "robot add r2 --type counter --slot slot-1 --capacity 4   | --capacity 4",
                "robot add r2 --type counter --config intervalMs          | intervalMs",
                "robot add r2 --type counter --config =5                  | =5",
                "robot add r2 --type counter --config $set=1              | $set=1",
                "robot add r2 --slot slot-0                               | --type",
                "robot move nobody --slot slot-1                          | nobody",
                "robot move r1 --slot slot-9                              | slot-9",
                "robot stop nobody                                        | nobody",
                "robot start nobody                                       | nobody",
                "robot rm nobody                                          | nobody",
                "robot list --slot slot-9                                 | slot-9",
                "robot rebalance --capacity -2                            | -2",
                "robot explode                                            | explode",
            })
    void badInputIsRejected(String args, String mention) {
        assertRejected(List.of(args.trim().split("\\s+")), mention);
    }

    @ParameterizedTest(name = "--config-json {0}")
    @ValueSource(
            strings = {"{\"intervalMs\": 5", "[1, 2]", "{\"a\": 1} trailing", "intervalMs=5", "{a: ObjectId('x')}"})
    void badConfigJsonIsRejected(String json) {
        assertRejected(
                List.of("robot", "add", "r2", "--type", "counter", "--config-json", json),
                "invalid --config-json '" + json + "': ");
    }
}
