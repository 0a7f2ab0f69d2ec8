package io.standby.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Whole nodes (slot protocol + robot runtime) in this JVM against the test database, with short real timings. Tests
 * wait for facts with generous deadlines, then assert on what was recorded: the runs in the {@link Tracker} and the
 * stored robot documents.
 */
class RobotRuntimeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String dbName;
    private StandbyDatabase admin;
    private RobotTable table;
    private MongoCollection<Document> robots;
    private final Tracker tracker = new Tracker();
    private final List<TestNode> nodes = new ArrayList<>();
    private final AtomicBoolean sampling = new AtomicBoolean();
    private ScheduledExecutorService sampler;

    @BeforeEach
    void setUp() {
        dbName = database.name();
        admin = database.connection();
        table = new RobotTable(admin);
        robots = admin.database().getCollection("robots");
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        sampling.set(false);
        if (sampler != null) {
            sampler.shutdownNow();
            sampler.awaitTermination(30, TimeUnit.SECONDS);
        }
        nodes.forEach(TestNode::close);
    }

    private TestNode node(int port, int maxSlots) {
        return node(port, maxSlots, TestNode.config(), false);
    }

    private TestNode node(int port, int maxSlots, RuntimeConfig config, boolean proxied) {
        String name = "127.0.0.1:" + port;
        TestNode node = TestNode.start(
                port,
                TestMongo.uri(),
                dbName,
                maxSlots,
                config,
                RobotTypes.of(TrackedRobot.factory(tracker, name)),
                proxied);
        nodes.add(node);
        return node;
    }

    private RobotView add(String id, String slot, int priority, Document config) {
        return table.add(
                new RobotTable.NewRobot(id, TrackedRobot.TYPE, slot, priority, 1, config), OptionalDouble.empty());
    }

    private RobotView robot(String id) {
        return table.get(id).orElseThrow();
    }

    private long count(RobotView robot) {
        return robot.context().get("count", Number.class) instanceof Number n ? n.longValue() : 0;
    }

    private long slotEpoch(String slot) {
        return new SlotTable(admin).get(slot).map(SlotView::epoch).orElseThrow();
    }

    /** Reads every robot's stored count every few milliseconds, to check that it never goes back. */
    private Map<String, List<Long>> sampleCounts() {
        Map<String, List<Long>> samples = new ConcurrentHashMap<>();
        sampling.set(true);
        sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleWithFixedDelay(
                () -> {
                    if (!sampling.get()) {
                        return;
                    }
                    for (Document doc : robots.find()) {
                        Document context = doc.get("context", Document.class);
                        if (context != null && context.get("count") instanceof Number n) {
                            samples.computeIfAbsent(doc.getString("_id"), k -> new CopyOnWriteArrayList<>())
                                    .add(n.longValue());
                        }
                    }
                },
                0,
                10,
                TimeUnit.MILLISECONDS);
        return samples;
    }

    private static void assertNeverDecreases(Map<String, List<Long>> samples) {
        assertFalse(samples.isEmpty(), "no samples taken");
        samples.forEach((robot, counts) -> {
            for (int i = 1; i < counts.size(); i++) {
                assertTrue(
                        counts.get(i) >= counts.get(i - 1),
                        robot + ": stored count went back from " + counts.get(i - 1) + " to " + counts.get(i));
            }
        });
    }

    @Test
    void theWinnerOfASlotStartsEveryRobotOfItFromItsStoredContext() {
        new SlotTable(admin).init(2);
        for (int i = 0; i < 8; i++) {
            add("a" + i, "slot-0", i % 3, new Document("intervalMs", 100));
            add("b" + i, "slot-1", 0, new Document("intervalMs", 100));
        }
        robots.updateOne(Filters.eq("_id", "a3"), Updates.set("context", new Document("count", 41L)));

        TestNode node = node(7301, 2);

        await().atMost(WAIT).until(() -> table.list(null).stream().allMatch(r -> r.state() == RobotState.RUNNING));
        for (RobotView robot : table.list(null)) {
            assertEquals(node.name, robot.node(), robot.id());
            assertEquals(slotEpoch(robot.slotId()), robot.epoch(), robot.id() + " is fenced at its slot's epoch");
            List<Tracker.Run> runs = tracker.runs(robot.id());
            assertEquals(1, runs.size(), robot.id() + " ran once");
            assertEquals(robot.epoch(), runs.getFirst().epoch, "the robot sees its fencing epoch");
        }
        assertEquals(41, tracker.runs("a3").getFirst().restored, "a3 resumed from its stored context");
        await().atMost(WAIT).until(() -> count(robot("a3")) > 41);
        assertEquals(
                Map.of(
                        "slot-0",
                        List.of("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"),
                        "slot-1",
                        List.of("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7")),
                node.running());
        tracker.assertNoOverlap();
    }

    @Test
    void aRobotsRunsAreRecordedAsEventsBesideTheSlotsChangesOfHands() {
        new SlotTable(admin).init(1);
        add("e1", "slot-0", 0, new Document("intervalMs", 100));
        TestNode node = node(7391, 1);
        await().atMost(WAIT).until(() -> robot("e1").state() == RobotState.RUNNING);
        table.stop("e1");
        await().atMost(WAIT).until(() -> robot("e1").state() == RobotState.STOPPED);
        node.close();

        EventTable events = new EventTable(admin);
        await().atMost(WAIT).until(() -> events.list(null, null, null, null).size() >= 4);
        List<EventView> all = events.list(null, null, null, null);
        assertEquals(
                List.of("robot-started", "robot-stopped"),
                events.list(null, null, "e1", null).stream()
                        .map(EventView::type)
                        .toList(),
                "the robot's own, in order: " + all);
        assertEquals(
                List.of("claimed", "released"),
                all.stream().filter(e -> e.robot() == null).map(EventView::type).toList());
        for (EventView event : all) {
            assertEquals("slot-0", event.slot(), event.toString());
            assertEquals(node.name, event.node(), event.toString());
            assertEquals(1, event.epoch(), event.toString());
        }
    }

    @Test
    void aTakeoverAfterTheOwnerIsCutOffResumesFromTheLastAcknowledgedCheckpoint() {
        new SlotTable(admin).init(1);
        for (int i = 0; i < 5; i++) {
            add("c" + i, "slot-0", 0, new Document("intervalMs", 20));
        }
        TestNode first = node(7311, 1, TestNode.config(), true);
        await().atMost(WAIT).until(() -> first.slotIds().equals(List.of("slot-0")));
        TestNode second = node(7312, 1);
        await().atMost(WAIT).until(() -> table.list(null).stream().allMatch(r -> count(r) >= 10));
        Map<String, List<Long>> samples = sampleCounts();

        first.proxy.pause(); // from the database's point of view, the first node is dead
        await().atMost(WAIT)
                .until(() -> table.list(null).stream()
                        .allMatch(r -> second.name.equals(r.node()) && tracker.isRunning(r.id(), second.name)));
        await().atMost(WAIT)
                .until(() ->
                        table.list(null).stream().allMatch(r -> r.context().getLong("epoch") == slotEpoch("slot-0")));

        for (RobotView robot : table.list(null)) {
            List<Tracker.Run> runs = tracker.runs(robot.id());
            assertEquals(2, runs.size(), robot.id() + " " + runs);
            Tracker.Run old = runs.get(0);
            Tracker.Run taken = runs.get(1);
            assertEquals(first.name, old.node);
            assertTrue(old.lastAcked >= 10, old.toString());
            assertTrue(
                    taken.restored >= old.lastAcked,
                    robot.id() + " lost acknowledged progress: resumed from " + taken.restored + " after " + old);
            assertTrue(
                    taken.restored <= old.lastAttempted, robot.id() + " resumed from a count nobody wrote: " + taken);
            assertTrue(taken.epoch > old.epoch, "the new run has a higher fencing epoch");
        }
        sampling.set(false);
        assertNeverDecreases(samples);
        tracker.assertNoOverlap();
    }

    @Test
    void aStaleOwnersCheckpointDeliveredAfterTheTakeoverIsRejected() {
        new SlotTable(admin).init(1);
        add("s", "slot-0", 0, new Document("intervalMs", 300));
        TestNode stale = node(7321, 1, TestNode.config(), true);
        await().atMost(WAIT).until(() -> count(robot("s")) >= 3);
        long staleEpoch = slotEpoch("slot-0");

        // Cut the owner off just after a checkpoint was acknowledged: its next one leaves 300 ms later,
        // while its lease is still valid, and is held in the network until after the takeover.
        long acked = tracker.runs("s").getFirst().lastAcked;
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(1))
                .until(() -> tracker.runs("s").getFirst().lastAcked > acked);
        stale.proxy.pause();
        long paused = System.nanoTime();
        TestNode next = node(7322, 1);
        await().atMost(WAIT)
                .until(() -> tracker.isRunning("s", next.name)
                        && count(robot("s")) > 0
                        && robot("s").context().getLong("epoch") > staleEpoch);
        table.stop("s");
        await().atMost(WAIT)
                .until(() -> robot("s").state() == RobotState.STOPPED && !tracker.isRunning("s", next.name));
        RobotView before = robot("s");
        Tracker.Run staleRun = tracker.runs("s").getFirst();
        assertEquals(stale.name, staleRun.node);
        assertTrue(
                staleRun.lastAttempted > staleRun.lastAcked,
                "a checkpoint of the stale owner is in flight: " + staleRun);

        long resumed = System.nanoTime();
        stale.proxy.resume();
        // The driver's record of the held checkpoint: a write under the stale token, answered after the takeover.
        java.util.function.Predicate<TestNode.Finished> staleWrite =
                f -> f.command().equals("update")
                        && f.body() != null
                        && f.done() > resumed
                        && f.body().getArray("updates").stream()
                                .anyMatch(u -> epochIn(u.asDocument().getDocument("q")) == staleEpoch);
        try {
            await().atMost(WAIT).until(() -> stale.finished.stream().anyMatch(staleWrite));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "no held write answered; paused=" + paused / 1_000_000 + " resumed=" + resumed / 1_000_000
                            + " runs=" + tracker.runs("s") + " finished="
                            + stale.finished.stream()
                                    .filter(f -> f.sent() >= paused - 1_000_000_000L)
                                    .map(f ->
                                            f.command() + "@" + f.sent() / 1_000_000 + ".." + f.done() / 1_000_000 + " "
                                                    + (f.body() == null
                                                            ? ""
                                                            : f.body()
                                                                    .getArray("updates")
                                                                    .toString()) + " "
                                                    + (f.error() != null
                                                            ? f.error()
                                                            : f.reply().toJson()))
                                    .toList(),
                    e);
        }
        for (TestNode.Finished write :
                stale.finished.stream().filter(staleWrite).toList()) {
            assertNotNull(write.reply(), "answered, not failed: " + write);
            assertEquals(0, write.reply().getNumber("n").intValue(), "the stale write matched nothing: " + write);
        }

        RobotView after = robot("s");
        assertEquals(before.context(), after.context(), "the stale write changed nothing");
        assertEquals(before.epoch(), after.epoch());
        assertTrue(after.epoch() > staleEpoch);
        assertEquals(after.epoch(), after.context().getLong("epoch"), "the stored context is the new owner's");
        tracker.assertNoOverlap();
    }

    /** The {@code epoch} a fencing filter asks for, wherever it sits in the filter; -1 if none. */
    private static long epochIn(org.bson.BsonValue filter) {
        if (filter.isDocument()) {
            for (Map.Entry<String, org.bson.BsonValue> e : filter.asDocument().entrySet()) {
                if (e.getKey().equals("epoch") && e.getValue().isNumber()) {
                    return e.getValue().asNumber().longValue();
                }
                long inner = epochIn(e.getValue());
                if (inner >= 0) {
                    return inner;
                }
            }
        } else if (filter.isArray()) {
            for (org.bson.BsonValue v : filter.asArray()) {
                long inner = epochIn(v);
                if (inner >= 0) {
                    return inner;
                }
            }
        }
        return -1;
    }

    @Test
    void aSecondNodeWithTheSameAddressThatDidNotBindItRefusesToStartAndNeverRunsTheRobots() {
        new SlotTable(admin).init(1);
        add("t1", "slot-0", 0, new Document("intervalMs", 10));
        TestNode first = node(7441, 1);
        await().atMost(WAIT).until(() -> robot("t1").state() == RobotState.RUNNING);

        // One JVM, so one host; neither node binds 127.0.0.1:7441 (withoutEndpoint()): nothing proves the first gone.
        IllegalStateException refused = null;
        try {
            node(7441, 1);
        } catch (IllegalStateException e) {
            refused = e;
        }

        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertEquals(1, slotEpoch("slot-0"), "the slot never changes hands");
            assertEquals(1, tracker.runs("t1").size(), "one run: " + tracker.runs("t1"));
        });
        assertEquals(List.of("slot-0"), first.slotIds());
        tracker.assertNoOverlap();
        assertNotNull(refused, "the second node started");
        String message = refused.getCause().getMessage();
        assertTrue(
                message.contains("127.0.0.1:7441")
                        && message.contains(first.standby.config().instance()),
                message);
    }

    @Test
    void runsNeverOverlapAcrossNodesWhileRobotsMoveBackAndForth() {
        new SlotTable(admin).init(2);
        for (int i = 0; i < 6; i++) {
            add("m" + i, "slot-" + (i % 2), 0, new Document("intervalMs", 10));
        }
        TestNode one = node(7331, 1);
        TestNode two = node(7332, 1);
        await().atMost(WAIT)
                .until(() -> one.slotIds().size() + two.slotIds().size() == 2
                        && table.list(null).stream().allMatch(r -> r.state() == RobotState.RUNNING));
        Map<String, List<Long>> samples = sampleCounts();

        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 6; i++) {
                String id = "m" + i;
                String to = robot(id).slotId().equals("slot-0") ? "slot-1" : "slot-0";
                table.move(id, to);
            }
            int r = round;
            await().atMost(WAIT)
                    .until(() -> table.list(null).stream()
                            .allMatch(robot -> robot.slotId()
                                            .equals("slot-"
                                                    + ((Integer.parseInt(robot.id()
                                                                            .substring(1))
                                                                    + r
                                                                    + 1)
                                                            % 2))
                                    && robot.state() == RobotState.RUNNING
                                    && tracker.running(robot.id()).size() == 1));
        }
        sampling.set(false);

        for (RobotView robot : table.list(null)) {
            List<Tracker.Run> runs = tracker.runs(robot.id());
            assertEquals(5, runs.size(), robot.id() + " ran once per placement: " + runs);
            for (int i = 1; i < runs.size(); i++) {
                assertTrue(
                        runs.get(i).restored >= runs.get(i - 1).lastAcked,
                        robot.id() + " lost progress in a move: " + runs.get(i - 1) + " -> " + runs.get(i));
                assertFalse(runs.get(i).node.equals(runs.get(i - 1).node), "each move changes node: " + runs);
            }
        }
        assertNeverDecreases(samples);
        tracker.assertNoOverlap();
    }

    @Test
    void aCrashLoopingRobotEndsFailedWhileTheOthersRun() {
        new SlotTable(admin).init(1);
        add("good", "slot-0", 0, new Document("intervalMs", 50));
        add("bad", "slot-0", 0, new Document("crash", "boom"));
        RuntimeConfig quickRestarts =
                TestNode.config().withRestarts(Duration.ofMillis(20), Duration.ofMillis(100), 4, Duration.ofMinutes(1));
        node(7341, 1, quickRestarts, false);

        await().atMost(WAIT).until(() -> robot("bad").state() == RobotState.FAILED);
        RobotView bad = robot("bad");
        assertEquals(4, tracker.runs("bad").size(), "started once and restarted until the limit");
        assertEquals(4, bad.restarts());
        assertTrue(bad.lastError().contains("boom"), bad.lastError());
        assertEquals(null, bad.node());
        long good = count(robot("good"));
        await().atMost(WAIT).until(() -> count(robot("good")) > good + 3);
        assertEquals(RobotState.RUNNING, robot("good").state());
        assertEquals(1, tracker.runs("good").size(), "the good robot was never disturbed");

        // Stays failed across polls until an operator starts it again.
        int runs = tracker.runs("bad").size();
        await().during(Duration.ofMillis(800))
                .atMost(WAIT)
                .until(() -> tracker.runs("bad").size() == runs && robot("bad").state() == RobotState.FAILED);

        table.start("bad");
        await().atMost(WAIT).until(() -> tracker.runs("bad").size() > runs);
        await().atMost(WAIT).until(() -> robot("bad").state() == RobotState.FAILED);
        assertEquals(2 * runs, tracker.runs("bad").size(), "start cleared the failures and retried");
        tracker.assertNoOverlap();
    }

    @Test
    void aStatusWriteLostWhileTheDatabaseWasUnreachableIsSentAgainAfterwards() {
        new SlotTable(admin).init(1);
        add(
                "flaky",
                "slot-0",
                0,
                new Document("checkpoint", false).append("intervalMs", 100).append("crashOnceAfterMs", 1500));
        RuntimeConfig quickRestarts =
                TestNode.config().withRestarts(Duration.ofMillis(20), Duration.ofMillis(100), 5, Duration.ofMinutes(1));
        TestNode node = TestNode.start(
                7391,
                TestMongo.uri(),
                dbName,
                1,
                quickRestarts,
                RobotTypes.of(TrackedRobot.factory(tracker, "127.0.0.1:7391")),
                TestNode.Cut.ROBOTS_ONLY,
                Duration.ofMillis(500));
        nodes.add(node);
        await().atMost(WAIT).until(() -> robot("flaky").state() == RobotState.RUNNING);

        // Only the robots' connection is cut: the slot stays owned while the crash's status write fails.
        node.proxy.pause();
        await().atMost(WAIT).until(() -> tracker.runs("flaky").size() == 2);
        await().during(Duration.ofSeconds(1))
                .atMost(WAIT)
                .alias("the restart's status write cannot arrive")
                .until(() -> robot("flaky").restarts() == 0);
        node.proxy.resume();

        await().atMost(WAIT).until(() -> robot("flaky").restarts() == 1);
        RobotView flaky = robot("flaky");
        assertTrue(flaky.lastError().contains("crashed once"), flaky.lastError());
        assertEquals(RobotState.RUNNING, flaky.state());
        assertEquals(List.of("slot-0"), node.slotIds(), "the slot was never lost");
        assertEquals(2, tracker.runs("flaky").size());
    }

    @Test
    void aRobotOfAnUnknownTypeFailsWithAClearErrorAndNothingElseIsAffected() {
        new SlotTable(admin).init(1);
        add("fine", "slot-0", 0, new Document("intervalMs", 50));
        table.add(new RobotTable.NewRobot("alien", "ledgerx", "slot-0", 5, 1, new Document()), OptionalDouble.empty());
        node(7351, 1);

        await().atMost(WAIT)
                .until(() -> robot("alien").state() == RobotState.FAILED
                        && robot("fine").state() == RobotState.RUNNING);
        RobotView alien = robot("alien");
        assertTrue(alien.lastError().contains("unknown robot type 'ledgerx'"), alien.lastError());
        assertTrue(alien.lastError().contains(TrackedRobot.TYPE), "names the known types: " + alien.lastError());
        long fine = count(robot("fine"));
        await().atMost(WAIT).until(() -> count(robot("fine")) > fine + 3);
    }

    @Test
    void liveChangesReachTheOwnerWithinAPoll() {
        new SlotTable(admin).init(1);
        TestNode node = node(7361, 1);
        await().atMost(WAIT).until(() -> node.slotIds().equals(List.of("slot-0")));

        add("live", "slot-0", 0, new Document("intervalMs", 20));
        await().atMost(WAIT).until(() -> robot("live").state() == RobotState.RUNNING && count(robot("live")) >= 3);

        table.stop("live");
        await().atMost(WAIT).until(() -> robot("live").state() == RobotState.STOPPED);
        RobotView stopped = robot("live");
        Tracker.Run run = tracker.runs("live").getFirst();
        assertTrue(run.end != 0 && run.outcome.equals("returned"), "asked to stop, it returned: " + run);
        assertEquals(run.lastAcked, count(stopped), "its last checkpoint is stored");
        assertEquals(null, stopped.node());
        assertEquals(Desired.STOPPED, stopped.desired());

        table.start("live");
        await().atMost(WAIT)
                .until(() -> tracker.runs("live").size() == 2 && robot("live").state() == RobotState.RUNNING);
        assertEquals(count(stopped), tracker.runs("live").get(1).restored, "restarted from where it stopped");

        assertEquals(RobotTable.RemoveResult.REQUESTED, table.remove("live"), "it runs: its node removes it");
        await().atMost(WAIT)
                .until(() ->
                        tracker.running("live").isEmpty() && table.get("live").isEmpty());
        await().during(Duration.ofMillis(600))
                .atMost(WAIT)
                .until(() -> table.get("live").isEmpty());
        assertEquals(Map.of("slot-0", List.of()), node.running());
        tracker.assertNoOverlap();
    }

    @Test
    void aGracefulStopLetsRobotsCheckpointAndAStandbyContinuesThem() {
        new SlotTable(admin).init(1);
        for (int i = 0; i < 3; i++) {
            add("g" + i, "slot-0", 0, new Document("intervalMs", 20));
        }
        TestNode first = node(7371, 1);
        await().atMost(WAIT).until(() -> table.list(null).stream().allMatch(r -> count(r) >= 5));
        TestNode second = node(7372, 1);

        first.close();
        for (int i = 0; i < 3; i++) {
            Tracker.Run run = tracker.runs("g" + i).getFirst();
            assertEquals("returned", run.outcome, "asked to stop, not interrupted: " + run);
        }
        await().atMost(WAIT)
                .until(() -> table.list(null).stream().allMatch(r -> tracker.isRunning(r.id(), second.name)));
        for (int i = 0; i < 3; i++) {
            List<Tracker.Run> runs = tracker.runs("g" + i);
            assertEquals(runs.get(0).lastAcked, runs.get(1).restored, "resumed exactly from the final checkpoint");
        }
        tracker.assertNoOverlap();
    }

    @Test
    void aLateCopyOfACheckpointNeverRollsBackNewerAcknowledgedOnes() {
        new SlotTable(admin).init(1);
        add("late", "slot-0", 0, new Document("intervalMs", 200));
        // Only the robots' connection goes through the proxy; a write not answered within 1 s is retried.
        TestNode node = TestNode.start(
                7401,
                TestMongo.uri(),
                dbName,
                1,
                TestNode.config(),
                RobotTypes.of(TrackedRobot.factory(tracker, "127.0.0.1:7401")),
                TestNode.Cut.ROBOTS_ONLY,
                Duration.ofSeconds(1));
        nodes.add(node);
        await().atMost(WAIT).until(() -> count(robot("late")) >= 3);
        Map<String, List<Long>> samples = sampleCounts();

        // The next checkpoint leaves on a connection that is open now: its bytes are held in the network.
        node.proxy.holdOpenConnections();
        long ackedWhenHeld = tracker.runs("late").getFirst().lastAcked;
        // It times out and is retried on a new connection; newer checkpoints follow and are acknowledged.
        await().atMost(WAIT).until(() -> tracker.runs("late").getFirst().lastAcked >= ackedWhenHeld + 4);
        long ackedBeforeDelivery = tracker.runs("late").getFirst().lastAcked;

        // Now the held copy reaches the server.
        assertTrue(node.proxy.deliverHeld() > 0, "a request was held back");
        await().during(Duration.ofMillis(1500)).atMost(WAIT).until(() -> count(robot("late")) >= ackedBeforeDelivery);

        sampling.set(false);
        assertNeverDecreases(samples);
        assertEquals(1, tracker.runs("late").size(), "one run throughout: " + tracker.runs("late"));
        tracker.assertNoOverlap();
    }

    @Test
    void removingARobotAndAddingItAgainInTheSameSlotNeverRunsTheOldOneOn() {
        new SlotTable(admin).init(1);
        // Checkpoints far apart: the old run is not stopped by the luck of a write landing between rm and add.
        Document config = new Document("intervalMs", 300);
        add("x", "slot-0", 0, config);
        node(7411, 1);
        await().atMost(WAIT).until(() -> count(robot("x")) >= 2);

        for (int round = 1; round <= 4; round++) {
            int runsBefore = tracker.runs("x").size();
            removeThenAdd("x", "slot-0", config);
            await().atMost(WAIT).until(() -> tracker.runs("x").size() > runsBefore && count(robot("x")) >= 1);
            List<Tracker.Run> runs = tracker.runs("x");
            Tracker.Run fresh = runs.get(runsBefore);
            assertEquals(0, fresh.restored, "the new robot starts from an empty context: " + runs);
            for (Tracker.Run earlier : runs.subList(0, runsBefore)) {
                assertTrue(earlier.end != 0 && earlier.end <= fresh.start, "the removed robot stopped first: " + runs);
            }
        }
        tracker.assertNoOverlap();
    }

    @Test
    void removingARobotAndAddingItAgainInAnotherSlotNeverRunsItTwice() {
        new SlotTable(admin).init(2);
        TestNode one = node(7421, 1);
        TestNode two = node(7422, 1);
        await().atMost(WAIT)
                .until(() -> one.slotIds().size() == 1 && two.slotIds().size() == 1);
        // An idle robot never writes: only the rm handshake can stop it before the other node starts it.
        Document idle = new Document("checkpoint", false).append("intervalMs", 20);
        add("y", "slot-0", 0, idle);
        await().atMost(WAIT).until(() -> tracker.running("y").size() == 1);

        for (int round = 1; round <= 10; round++) {
            int runsBefore = tracker.runs("y").size();
            removeThenAdd("y", "slot-" + (round % 2), idle);
            await().atMost(WAIT).until(() -> tracker.runs("y").size() > runsBefore);
        }
        tracker.assertNoOverlap();
        assertEquals(
                2,
                tracker.runs("y").stream().map(r -> r.node).distinct().count(),
                "ran on both nodes: " + tracker.runs("y"));
    }

    /** {@code robot rm} then {@code robot add} of the same id, as fast as the table allows. */
    private void removeThenAdd(String id, String slot, Document config) {
        table.remove(id);
        await().atMost(WAIT)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5))
                .ignoreException(IllegalArgumentException.class)
                .until(() -> add(id, slot, 0, config) != null);
    }

    @Test
    void aMalformedRobotDocumentIsSkippedWithoutStoppingTheOthers() {
        new SlotTable(admin).init(1);
        add("ok", "slot-0", 0, new Document("intervalMs", 50));
        robots.insertOne(
                new Document("_id", "broken").append("slotId", "slot-0").append("priority", "high"));
        node(7381, 1);

        await().atMost(WAIT).until(() -> count(robot("ok")) >= 3);
        assertTrue(table.get("broken").isEmpty(), "not decodable, so not listed");
        assertNotNull(robots.find(Filters.eq("_id", "broken")).first(), "but left as it was");
        assertTrue(tracker.runs("broken").isEmpty());
    }
}
