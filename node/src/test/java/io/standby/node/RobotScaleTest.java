package io.standby.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotCodec;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node with a thousand robots: they all start soon after the slot is won, and once they are running idle the node's
 * database load is what it is without robots; checkpoints of many robots share bulk writes. Judged on recorded times
 * and on the commands the node's driver reports, with generous bounds only. The timing numbers are measured by
 * {@code scripts/bench scale} (10,000 robots, real processes) and kept in docs/BENCHMARKS.md.
 *
 * <p>The start bound asserted here is the 2 s, scaled by {@code standby.slack} (default 3) so a loaded CI
 * machine does not fail it.
 */
class RobotScaleTest {

    private static final int ROBOTS = 1_000;
    private static final double SLACK = Double.parseDouble(System.getProperty("standby.slack", "3"));

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

    private void addIdleRobots(int count) {
        addRobots(count, new Document("checkpoint", false).append("intervalMs", 1000));
    }

    private void addRobots(int count, Document config) {
        List<Document> docs = IntStream.range(0, count)
                .mapToObj(i ->
                        RobotCodec.newRobot(String.format("idle-%04d", i), TrackedRobot.TYPE, "slot-0", 0, 1.0, config))
                .toList();
        if (!docs.isEmpty()) {
            admin.database().getCollection("robots").insertMany(docs);
        }
    }

    private TestNode node(int port) {
        TestNode node = TestNode.start(
                port,
                TestMongo.uri(),
                dbName,
                1,
                TestNode.config(),
                RobotTypes.of(TrackedRobot.factory(tracker, "127.0.0.1:" + port)),
                false);
        nodes.add(node);
        return node;
    }

    @Test
    void aThousandRobotsStartSoonAfterTheirSlotIsWon() {
        addIdleRobots(ROBOTS);
        TestNode node = node(7401);

        await().atMost(Duration.ofSeconds(60)).until(() -> tracker.all().size() == ROBOTS);
        long won = node.acquiredAt.get();
        long lastStart = tracker.all().stream().mapToLong(r -> r.start).max().orElseThrow();
        Duration took = Duration.ofNanos(lastStart - won);
        assertTrue(
                took.toMillis() < 2_000 * SLACK,
                "all " + ROBOTS + " robots started " + took.toMillis() + " ms after the win");
        assertEquals(ROBOTS, tracker.all().stream().map(r -> r.robot).distinct().count(), "each robot once");
        tracker.assertNoOverlap();
    }

    @Test
    void anIdleNodesDatabaseLoadDoesNotGrowWithItsRobots() throws InterruptedException {
        TestNode empty = node(7411);
        await().atMost(Duration.ofSeconds(30)).until(() -> empty.slotIds().size() == 1);
        double without = steadyRate(empty);
        empty.close();

        addIdleRobots(ROBOTS);
        TestNode loaded = node(7412);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> tracker.all().size() == ROBOTS
                        && admin.database().getCollection("robots").countDocuments(new Document("state", "RUNNING"))
                                == ROBOTS);
        double with = steadyRate(loaded);

        // Heartbeat every 200 ms and robot sync every 200 ms: about 10 commands a second either way.
        assertTrue(
                with <= without * 1.25 + 1,
                "with " + ROBOTS + " idle robots: " + with + "/s, without: " + without + "/s");
        assertTrue(without < 30, "a node's own load is a handful of commands per second: " + without);
    }

    @Test
    void checkpointsOfManyRobotsGoOutInBulk() throws InterruptedException {
        addRobots(ROBOTS, new Document("intervalMs", 1000));
        TestNode node = node(7421);
        // Every robot checkpointing: each has had a checkpoint acknowledged.
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        tracker.all().size() == ROBOTS && tracker.all().stream().allMatch(r -> r.lastAcked > 0));
        long acked = tracker.all().stream().mapToLong(r -> r.lastAcked).sum();
        double commands = steadyRate(node);
        long checkpoints = tracker.all().stream().mapToLong(r -> r.lastAcked).sum() - acked;
        double perSecond = checkpoints / 6.0;
        assertTrue(perSecond > ROBOTS / 10.0, "the robots keep checkpointing: " + perSecond);
        assertTrue(
                commands < perSecond / 2,
                "checkpoints share bulk writes: " + commands + " commands for " + perSecond + " checkpoints a second");
    }

    /** Commands per second over five seconds, after a second to settle. */
    private static double steadyRate(TestNode node) throws InterruptedException {
        long from = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        // A sleep on purpose: a rate is measured over a stretch of time, and nothing ends it but the clock.
        // The commands carry their own timestamps, so the first second (to settle) is left out afterwards.
        Thread.sleep(6_000);
        long to = System.nanoTime();
        return node.commandsBetween(from, to) / ((to - from) / 1e9);
    }
}
