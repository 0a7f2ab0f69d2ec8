package io.standby.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.standby.robot.model.RobotCodec;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A graceful stop of a node with many robots writes every robot's final state (PENDING, no node) before the slot is
 * released, also for robots whose last checkpoint was still being retried when the stop came. Nor does the stop timeout
 * cut a final write short. Judged on the robots' and the slot's documents, not on the node's logs. About 5 s each.
 */
class RobotStopTest {

    private static final int ROBOTS = 200;

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(30), null), StandbyDatabase::database);

    private String dbName;
    private StandbyDatabase admin;
    private final Tracker tracker = new Tracker();
    private final List<TestNode> nodes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        dbName = database.name();
        admin = database.connection();
        new SlotTable(admin).init(1);
    }

    @AfterEach
    void tearDown() {
        nodes.forEach(TestNode::close);
    }

    @Test
    void aGracefulStopWritesTheFinalStateOfRobotsWhoseCheckpointsWereRetrying() throws InterruptedException {
        addRobots(new Document("intervalMs", 100));
        // Only the robots' connection goes through the proxy: the slot's lease holds while their writes fail.
        TestNode node = TestNode.start(
                7431,
                TestMongo.uri(),
                dbName,
                1,
                TestNode.config(),
                RobotTypes.of(TrackedRobot.factory(tracker, "127.0.0.1:7431")),
                TestNode.Cut.ROBOTS_ONLY,
                Duration.ofMillis(500));
        nodes.add(node);
        await().atMost(Duration.ofSeconds(30)).until(() -> running() == ROBOTS);

        // Every checkpoint times out and is retried; the stop comes while they wait to retry, then the
        // database is back in time for the final writes. The first failure to wait for is the write in flight
        // at the pause, or the next one on a pooled connection: judged by when it failed, not when it was
        // sent, since once that connection is dropped the driver's next write waits for a new one that the
        // paused proxy never answers, and fails before any command starts (no command event at all).
        long paused = System.nanoTime();
        node.proxy.pause();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> node.finished.stream()
                        .anyMatch(f -> f.done() >= paused && f.command().equals("update") && f.error() != null));
        Thread stop = Thread.ofPlatform().start(node.standby::close);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> node.standby.notReady().equals(Optional.of("stopped")));
        node.proxy.resume();
        stop.join(Duration.ofSeconds(30));
        assertFalse(stop.isAlive(), "the stop ended");

        assertEquals(List.of(), notReleased(), "robots whose final state was not written (at most 5 shown)");
        assertNull(slot().get("ip"), "slot released");
    }

    @Test
    void theStopTimeoutNeverCutsAFinalWriteShortNorReleasesTheSlotBeforeIt() throws InterruptedException {
        addRobots(new Document("checkpoint", false));
        TestNode node = TestNode.start(
                7432,
                TestMongo.uri(),
                dbName,
                1,
                TestNode.config().withStopTimeout(Duration.ofSeconds(1)),
                RobotTypes.of(TrackedRobot.factory(tracker, "127.0.0.1:7432")),
                TestNode.Cut.ROBOTS_ONLY,
                Duration.ofSeconds(30));
        nodes.add(node);
        await().atMost(Duration.ofSeconds(30)).until(() -> running() == ROBOTS);

        // The robots return at once, but their final writes cannot arrive for longer than the stop timeout.
        node.proxy.pause();
        Thread stop = Thread.ofPlatform().start(node.standby::close);
        // A sleep on purpose: what is shown is that nothing happens for longer than the stop timeout (1 s),
        // and no recorded fact marks that time; the slot must still be owned after it.
        Thread.sleep(2_500);
        Object ownerWhileUnwritten = slot().get("ip");
        node.proxy.resume();
        stop.join(Duration.ofSeconds(30));
        assertFalse(stop.isAlive(), "the stop ended");

        assertNotNull(ownerWhileUnwritten, "the slot was released before its robots' final states were written");
        assertEquals(List.of(), notReleased(), "robots whose final state was not written");
        assertNull(slot().get("ip"), "slot released");
    }

    private void addRobots(Document config) {
        List<Document> docs = IntStream.range(0, ROBOTS)
                .mapToObj(i ->
                        RobotCodec.newRobot(String.format("r-%03d", i), TrackedRobot.TYPE, "slot-0", 0, 1.0, config))
                .toList();
        admin.database().getCollection("robots").insertMany(docs);
    }

    /** Read from the database: a final state that was never attempted leaves no log line. */
    private List<String> notReleased() {
        List<String> notReleased = new ArrayList<>();
        admin.database().getCollection("robots").find().forEach(robot -> {
            if (!"PENDING".equals(robot.getString("state")) || robot.get("node") != null) {
                notReleased.add(robot.getString("_id") + " " + robot.getString("state") + " on " + robot.get("node"));
            }
        });
        return notReleased.subList(0, Math.min(5, notReleased.size()));
    }

    private Document slot() {
        return admin.database()
                .getCollection("slots")
                .find(new Document("_id", "slot-0"))
                .first();
    }

    private long running() {
        return admin.database().getCollection("robots").countDocuments(new Document("state", "RUNNING"));
    }
}
