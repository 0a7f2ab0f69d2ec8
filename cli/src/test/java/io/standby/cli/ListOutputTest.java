package io.standby.cli;

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
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.NodeRegistry;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.OptionalDouble;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code -o json|wide} and {@code --no-headers} on every list command, and {@code status -o json}: the JSON is parsed,
 * its documented field names and ISO-8601 times checked against what was stored.
 */
class ListOutputTest {

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

    /** slot-0 owned by 10.0.0.1:7700 with robot c1 running, slot-1 free; two nodes; two events. */
    private void cluster() {
        new SlotTable(admin).init(2);
        TestSlots.ownedByTenZeroZeroOne(admin, "slot-0");
        RobotTable robots = new RobotTable(admin);
        robots.add(
                new RobotTable.NewRobot("c1", "counter", "slot-0", 3, 2.5, new Document("intervalMs", 500)),
                OptionalDouble.empty());
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "c1"),
                        Updates.combine(
                                Updates.set("state", "RUNNING"),
                                Updates.set("node", "10.0.0.1:7700"),
                                Updates.set("restarts", 2),
                                Updates.set("context", new Document("count", 41).append("note", "a \"quoted\"\nline")),
                                Updates.set("lastError", "java.lang.IllegalStateException: boom\n\tat x")));
        MongoNodeRegistry registry = new MongoNodeRegistry(admin.database());
        registry.write(
                new NodeRegistry.NodeRecord(
                        new NodeId("10.0.0.1", 7700),
                        "1-a@h:1:1",
                        "h:1:1",
                        NodeState.OWNER,
                        List.of("slot-0"),
                        2,
                        1,
                        0,
                        0.25,
                        0.5,
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
        EventLog log = new EventLog(admin.database()).start();
        log.record(new Document("type", "claimed")
                .append("slot", "slot-0")
                .append("epoch", 1L)
                .append("node", "10.0.0.2:7700"));
        log.record(new Document("type", "took-over")
                .append("slot", "slot-0")
                .append("epoch", 2L)
                .append("node", "10.0.0.1:7700")
                .append("from", "10.0.0.2:7700")
                .append("heartbeat", Date.from(Instant.now().minusSeconds(6))));
        log.close(Duration.ofSeconds(10));
    }

    private CliRun ok(String... args) {
        CliRun run = CliRun.against(db, args);
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("", run.err());
        return run;
    }

    private static List<BsonDocument> array(CliRun run) {
        return BsonArray.parse(run.out()).getValues().stream()
                .map(BsonValue::asDocument)
                .toList();
    }

    private static Instant time(BsonDocument doc, String field) {
        return Instant.parse(doc.getString(field).getValue());
    }

    @Test
    void slotsListAsJsonHasOneObjectPerSlotWithIsoTimesAndDurationsInMs() {
        cluster();
        List<BsonDocument> slots = array(ok("slots", "list", "-o", "json"));

        assertEquals(
                List.of("slot-0", "slot-1"),
                slots.stream().map(s -> s.getString("id").getValue()).toList());
        BsonDocument owned = slots.get(0);
        assertEquals("10.0.0.1:7700", owned.getString("owner").getValue());
        assertEquals("1-a@h:1:1", owned.getString("instance").getValue());
        assertEquals("owned", owned.getString("state").getValue());
        assertEquals(1, owned.getNumber("epoch").longValue());
        assertEquals(60_000, owned.getNumber("leaseMs").longValue());
        assertTrue(
                Duration.between(time(owned, "heartbeat"), Instant.now()).abs().compareTo(Duration.ofMinutes(1)) < 0,
                owned.toJson());
        assertTrue(owned.getNumber("heartbeatAgeMs").longValue() < 60_000, owned.toJson());
        assertFalse(owned.getBoolean("expired").getValue());
        BsonDocument free = slots.get(1);
        assertTrue(free.isNull("owner") && free.isNull("heartbeat") && free.isNull("heartbeatAgeMs"), free.toJson());
        assertEquals("free", free.getString("state").getValue());
    }

    @Test
    void robotListAsJsonCarriesConfigContextAndTheWholeError() {
        cluster();
        List<BsonDocument> robots = array(ok("robot", "list", "-o", "json"));

        assertEquals(1, robots.size());
        BsonDocument c1 = robots.getFirst();
        assertEquals("c1", c1.getString("id").getValue());
        assertEquals("slot-0", c1.getString("slot").getValue());
        assertEquals("RUNNING", c1.getString("state").getValue());
        assertEquals("10.0.0.1:7700", c1.getString("node").getValue());
        assertEquals(2, c1.getNumber("restarts").intValue());
        assertEquals(3, c1.getNumber("priority").intValue());
        assertEquals(2.5, c1.getNumber("weight").doubleValue());
        assertEquals(500, c1.getDocument("config").getNumber("intervalMs").intValue());
        assertEquals(
                "a \"quoted\"\nline",
                c1.getDocument("context").getString("note").getValue());
        assertEquals(
                "java.lang.IllegalStateException: boom\n\tat x",
                c1.getString("lastError").getValue());
        assertTrue(
                Duration.between(time(c1, "updated"), Instant.now()).abs().compareTo(Duration.ofMinutes(1)) < 0,
                c1.toJson());
        assertTrue(c1.isNull("target"), c1.toJson());
    }

    @Test
    void nodesAsJsonSayStateLoadAndWhenEachWasSeen() {
        cluster();
        List<BsonDocument> nodes = array(ok("nodes", "-o", "json"));

        assertEquals(
                List.of("10.0.0.1:7700", "10.0.0.2:7700"),
                nodes.stream().map(n -> n.getString("id").getValue()).toList());
        BsonDocument owner = nodes.getFirst();
        assertEquals("owner", owner.getString("state").getValue());
        assertEquals(
                List.of("slot-0"),
                owner.getArray("slots").stream()
                        .map(v -> v.asString().getValue())
                        .toList());
        assertEquals(2, owner.getNumber("maxSlots").intValue());
        assertEquals(40, owner.getNumber("load").intValue());
        assertEquals(0.25, owner.getNumber("cpu").doubleValue());
        assertEquals(20_000, owner.getNumber("intervalMs").longValue());
        assertFalse(owner.getBoolean("offline").getValue());
        assertTrue(
                Duration.between(time(owner, "seen"), Instant.now()).abs().compareTo(Duration.ofMinutes(1)) < 0,
                owner.toJson());
        assertEquals("standby", nodes.get(1).getString("state").getValue());
    }

    @Test
    void eventsAsJsonAreOldestFirstWithTheTakeoverGap() {
        cluster();
        List<BsonDocument> events = array(ok("events", "-o", "json"));

        assertEquals(
                List.of("claimed", "took-over"),
                events.stream().map(e -> e.getString("type").getValue()).toList());
        BsonDocument takeover = events.get(1);
        assertEquals("10.0.0.2:7700", takeover.getString("from").getValue());
        assertEquals(2, takeover.getNumber("epoch").longValue());
        assertFalse(time(takeover, "time").isBefore(time(events.getFirst(), "time")));
        long gap = takeover.getNumber("gapMs").longValue();
        assertTrue(gap >= 5_000 && gap < 60_000, takeover.toJson());
        assertEquals(
                Duration.between(time(takeover, "heartbeat"), time(takeover, "time"))
                        .toMillis(),
                gap);
        assertTrue(takeover.getString("text").getValue().startsWith("took over from 10.0.0.2:7700"), takeover.toJson());
    }

    @Test
    void statusTakesDashOJsonAsWellAsDashDashJson() {
        cluster();
        CliRun o = ok("status", "-o", "json");
        Document status = Document.parse(o.out());
        assertEquals(
                List.of("slot-0", "slot-1"),
                status.getList("slots", Document.class).stream()
                        .map(s -> s.getString("id"))
                        .toList());
        Instant.parse(status.getString("time"));
        assertEquals(Document.parse(ok("status", "--json").out()).keySet(), status.keySet());
    }

    @Test
    void anEmptyListIsAnEmptyArrayOrNothingWithoutHeaders() {
        for (String[] command : List.of(
                new String[] {"slots", "list"}, new String[] {"robot", "list"}, new String[] {"nodes"}, new String[] {
                    "events"
                })) {
            String[] json = concat(command, "-o", "json");
            assertEquals(0, BsonArray.parse(ok(json).out()).size(), String.join(" ", json));
            String[] bare = concat(command, "--no-headers");
            assertEquals("", ok(bare).out(), String.join(" ", bare));
        }
    }

    @Test
    void noHeadersPrintsTheRowsAloneAndWideAddsColumns() {
        cluster();
        assertHeaders(List.of("slots", "list"), "SLOT", 2, "INSTANCE", "HEARTBEAT", "LATE MARK", "CHANGES", "DRAIN");
        assertHeaders(List.of("robot", "list"), "ROBOT", 1, "UPDATED", "CONFIG", "INCARNATION");
        assertHeaders(List.of("nodes"), "NODE", 2, "INSTANCE", "HOST", "STARTED", "INTERVAL");
        assertHeaders(List.of("events"), "TIME", 2, "TYPE", "ID");

        // Wide cuts nothing: the whole error, on one line.
        String wide = ok("robot", "list", "-o", "wide").out();
        assertTrue(wide.contains("java.lang.IllegalStateException: boom at x"), wide);
        assertFalse(wide.contains("Long values are cut"), wide);
    }

    /** The table's first line is its header; without headers the rows alone; wide has the narrow columns and more. */
    private void assertHeaders(List<String> command, String first, int rows, String... wideOnly) {
        String[] args = command.toArray(String[]::new);
        List<String> table = ok(args).out()
                .strip()
                .lines()
                .filter(line -> !line.startsWith("Long values are cut"))
                .toList();
        assertTrue(table.getFirst().startsWith(first), table.getFirst());
        assertEquals(rows + 1, table.size(), String.join("\n", table));
        List<String> rowsAlone =
                ok(concat(args, "--no-headers")).out().strip().lines().toList();
        // The same rows (ages move on between two runs: the first two columns do not).
        assertEquals(firstColumns(table.subList(1, table.size())), firstColumns(rowsAlone));
        List<String> narrow = columns(table.getFirst());
        List<String> wide =
                columns(ok(concat(args, "-o", "wide")).out().lines().findFirst().orElseThrow());
        assertEquals(
                narrow,
                wide.stream().filter(narrow::contains).toList(),
                "wide has the narrow table's columns, in order");
        assertEquals(
                List.of(wideOnly),
                wide.stream().filter(column -> !narrow.contains(column)).toList());
    }

    private static List<String> columns(String header) {
        return List.of(header.strip().split("\\s{2,}"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "slots list",
                "robot list",
                "nodes",
                "events",
                "status",
                "robot show c1",
                "robot add c2 --type counter",
                "robot move c1 --slot slot-1",
                "robot stop c1",
                "robot start c1",
                "robot rm c1",
                "robot rebalance",
                "slots init --count 3",
                "slots release slot-0",
                "node drain 10.0.0.1:7700"
            })
    void anUnknownOutputFormatIsOneLineNamingItAndChangesNothing(String command) {
        cluster();
        String before = ok("robot", "list", "-o", "json").out()
                + ok("slots", "list", "--no-headers").out();
        CliRun run = CliRun.against(db, concat(command.split(" "), "-o", "xml"));
        assertEquals(2, run.exitCode(), run.err());
        String line = run.errorLine();
        assertTrue(line.contains("'xml'") && line.contains("--output") && line.contains("json, yaml or wide"), line);
        assertEquals("", run.out());
        assertEquals(
                firstColumns(before.lines().toList()),
                firstColumns((ok("robot", "list", "-o", "json").out()
                                + ok("slots", "list", "--no-headers").out())
                        .lines()
                        .toList()));
    }

    /** YAML and JSON are two spellings of the same objects: SnakeYAML reads both and finds them equal. */
    @ParameterizedTest
    @ValueSource(strings = {"robot list", "events", "robot show c1", "slots list --no-headers"})
    void yamlIsTheSameObjectsAsJson(String command) {
        cluster();
        String[] args = command.split(" ");
        Object json = new org.yaml.snakeyaml.Yaml()
                .load(ok(concat(args, "-o", "json")).out());
        String yaml = ok(concat(args, "-o", "yaml")).out();
        Object fromYaml = new org.yaml.snakeyaml.Yaml().load(yaml);
        if (command.startsWith("slots")) {
            // Ages move on between the two runs.
            for (Object slot : (List<?>) json) {
                ((java.util.Map<?, ?>) slot).remove("heartbeatAgeMs");
            }
            for (Object slot : (List<?>) fromYaml) {
                ((java.util.Map<?, ?>) slot).remove("heartbeatAgeMs");
            }
        }
        assertEquals(json, fromYaml, yaml);
        assertFalse(yaml.strip().startsWith("[") || yaml.strip().startsWith("{"), "block style:\n" + yaml);
    }

    @Test
    void statusTakesDashOYamlAndWideIsItsText() {
        cluster();
        java.util.Map<?, ?> yaml =
                new org.yaml.snakeyaml.Yaml().load(ok("status", "-o", "yaml").out());
        assertEquals(Document.parse(ok("status", "-o", "json").out()).keySet(), yaml.keySet());
        assertEquals(
                ok("status").out().lines().findFirst(),
                ok("status", "-o", "wide").out().lines().findFirst());
        CliRun both = CliRun.against(db, "status", "--json", "-o", "yaml");
        assertEquals(2, both.exitCode());
        assertTrue(both.errorLine().contains("--json and -o yaml"), both.errorLine());
    }

    /** {@code robot show -o json} is a view with the list's fields and the robot's last events; --json the same. */
    @Test
    void robotShowAsJsonIsTheListsObjectWithItsEvents() {
        cluster();
        admin.database()
                .getCollection("events")
                .updateMany(Filters.eq("type", "took-over"), Updates.set("robot", "c1"));
        Document shown = Document.parse(ok("robot", "show", "c1", "-o", "json").out());
        Document listed = Document.parse(ok("robot", "list", "-o", "json").out().replaceFirst("^\\[", "{\"a\":[") + "}")
                .getList("a", Document.class)
                .getFirst();
        List<String> keys = new java.util.ArrayList<>(listed.keySet());
        keys.add("events");
        assertEquals(keys, List.copyOf(shown.keySet()), "the list's fields, then events; not the stored document");
        assertEquals("c1", shown.getString("id"));
        Instant.parse(shown.getString("updated"));
        List<Document> events = shown.getList("events", Document.class);
        assertEquals(
                List.of("took-over"),
                events.stream().map(e -> e.getString("type")).toList());
        assertEquals(shown, Document.parse(ok("robot", "show", "c1", "--json").out()), "--json is -o json");
    }

    /** A change's {@code -o json}: what was done, the ids and epochs, and the change made as without -o. */
    @Test
    void changingCommandsPrintTheirResultAsOneObject() {
        cluster();
        Document added = Document.parse(ok("robot", "add", "c2", "--type", "counter", "--slot", "slot-1", "-o", "json")
                .out());
        assertEquals("added", added.getString("result"));
        assertEquals("c2", added.getString("robot"));
        assertEquals("slot-1", added.getString("slot"));
        assertEquals(true, added.getBoolean("builtInType"));
        assertFalse(added.getString("incarnation").isBlank());

        Document moved = Document.parse(
                ok("robot", "move", "c2", "--slot", "slot-0", "-o", "json").out());
        assertEquals(
                List.of("moved", "c2", "slot-1", "slot-0"),
                List.of(
                        moved.getString("result"),
                        moved.getString("robot"),
                        moved.getString("from"),
                        moved.getString("slot")));
        Document requested = Document.parse(
                ok("robot", "move", "c1", "--slot", "slot-1", "-o", "json").out());
        assertEquals("requested", requested.getString("result"));
        assertEquals("10.0.0.1:7700", requested.getString("node"));

        Document stopped =
                Document.parse(ok("robot", "stop", "c2", "-o", "json").out());
        assertEquals("stopped", stopped.getString("result"));
        assertEquals(
                "stopped",
                new RobotTable(admin).get("c2").orElseThrow().desired().value());
        Document started =
                Document.parse(ok("robot", "start", "c2", "-o", "json").out());
        assertEquals(List.of("started", "slot-0"), List.of(started.getString("result"), started.getString("slot")));
        java.util.Map<?, ?> removed = new org.yaml.snakeyaml.Yaml()
                .load(ok("robot", "rm", "c2", "-o", "yaml").out());
        assertEquals("removed", removed.get("result"));
        assertTrue(new RobotTable(admin).get("c2").isEmpty());

        Document init =
                Document.parse(ok("slots", "init", "--count", "3", "-o", "json").out());
        assertEquals(1, init.getInteger("created"));
        assertEquals(List.of("slot-0", "slot-1", "slot-2"), init.getList("slots", String.class));

        Document released =
                Document.parse(ok("slots", "release", "slot-0", "-o", "json").out());
        assertEquals("released", released.getString("result"));
        assertEquals("10.0.0.1:7700", released.getString("owner"));
        assertEquals(1, released.get("epoch", Number.class).longValue());
        long epochNow = new SlotTable(admin).list().getFirst().epoch();
        assertEquals(epochNow, released.get("newEpoch", Number.class).longValue());
        assertTrue(epochNow > 1, "released: the epoch moved on");
        assertEquals(60_000, released.get("leaseMs", Number.class).longValue());

        Document drain = Document.parse(
                ok("node", "drain", "10.0.0.1:7700", "--force", "-o", "json").out());
        assertEquals("drain-requested", drain.getString("result"));
        assertEquals("10.0.0.1:7700", drain.getString("node"));
        assertTrue(drain.getBoolean("forced"));

        Document balance = Document.parse(
                ok("robot", "rebalance", "--dry-run", "-o", "json").out());
        assertTrue(balance.getBoolean("dryRun"));
        assertTrue(List.of("planned", "balanced").contains(balance.getString("result")), balance.toJson());
    }

    private static List<String> firstColumns(List<String> lines) {
        return lines.stream()
                .map(line -> String.join(" ", java.util.Arrays.copyOf(line.split("\\s+"), 2)))
                .toList();
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
