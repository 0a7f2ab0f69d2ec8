package io.standby.robot.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.admin.RobotTable.NewRobot;
import io.standby.robot.internal.MongoRobotIds;
import io.standby.robot.internal.MongoRobotStore;
import io.standby.robot.internal.RobotDocuments;
import io.standby.robot.internal.RobotIdRules;
import io.standby.robot.internal.RobotIds;
import io.standby.robot.internal.RobotRules;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One robot id, one robot, on a {@code robots} collection sharded on {@code {slotId: 1}} ({@link ShardedRobots}: slot-0
 * on one shard, slot-1 on the other), where {@code _id} alone keeps an id unique per shard only. What docs/SCALING.md
 * claims for a sharded cluster.
 */
class RobotIdAcrossShardsTest {

    private static final int ROUNDS = 40;

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private StandbyDatabase db;
    private SlotTable slots;
    private ShardedRobots robots;
    private MongoRobotIds ids;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        db = database.connection();
        slots = new SlotTable(db);
        slots.init(2);
        MongoRobotStore shard0 = new MongoRobotStore(db.database(), slots);
        MongoRobotStore shard1 = new MongoRobotStore(db.client().getDatabase(database.name() + "-shard1"), slots);
        robots = new ShardedRobots(List.of(shard0, shard1), slotId -> slotId.equals("slot-0") ? 0 : 1);
        ids = new MongoRobotIds(db);
        threads = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        db.client().getDatabase(database.name() + "-shard1").drop();
    }

    private RobotTable table() {
        return new RobotTable(robots, ids, slots);
    }

    private static NewRobot robot(String id, String slotId) {
        return new NewRobot(id, "counter", slotId, 0, 1, new Document());
    }

    private List<Document> stored(String id) {
        return robots.find(Filters.eq("_id", id), List.of(), 0);
    }

    @Test
    void concurrentAddsOfOneIdIntoSlotsOnDifferentShardsLeaveExactlyOneRobot() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String id = "r" + round;
            CyclicBarrier together = new CyclicBarrier(2);
            List<Future<String>> adds = new ArrayList<>();
            for (String slotId : List.of("slot-0", "slot-1")) {
                RobotTable table = table();
                adds.add(threads.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    try {
                        table.add(robot(id, slotId), OptionalDouble.empty());
                        return "added into " + slotId;
                    } catch (IllegalArgumentException e) {
                        return "refused: " + e.getMessage();
                    }
                }));
            }
            List<String> outcomes = new ArrayList<>();
            for (Future<String> add : adds) {
                outcomes.add(add.get(30, TimeUnit.SECONDS));
            }

            assertEquals(1, stored(id).size(), "round " + round + ": one robot of id " + id + " " + outcomes);
            assertEquals(
                    1,
                    outcomes.stream().filter(o -> o.startsWith("added")).count(),
                    "round " + round + ": exactly one add wins " + outcomes);
            String refusal = outcomes.stream()
                    .filter(o -> o.startsWith("refused"))
                    .findFirst()
                    .orElseThrow();
            assertTrue(refusal.contains("'" + id + "'"), refusal);
            assertFalse(refusal.contains("\n"), "one line: " + refusal);
        }
    }

    private static void assertRefused(String mention, Runnable command) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, command::run);
        assertTrue(e.getMessage().contains(mention), "'" + e.getMessage() + "' should name " + mention);
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    private RobotView add(RobotTable table, String id, String slotId) {
        return table.add(robot(id, slotId), OptionalDouble.empty());
    }

    /**
     * The refusal leaves the id bound to the robot that has it: an add that took the entry over on its way to being
     * refused, and gave it back, would leave the id free for a third add on another shard beside the first robot.
     */
    @Test
    void anIdBoundToARobotOnOneShardIsRefusedOnTheOther() {
        RobotView first = add(table(), "r1", "slot-0");

        assertRefused("'r1' already exists (in slot-0)", () -> add(table(), "r1", "slot-1"));

        assertEquals(1, stored("r1").size());
        assertEquals(
                Optional.of(new RobotIds.Entry("r1", first.incarnation(), RobotIds.State.BOUND)),
                ids.get("r1"),
                "still the first robot's");
    }

    /** A node deletes a removed robot under its token and leaves the registry alone: the entry is stale. */
    @Test
    void anIdWhoseRobotANodeDeletedCanBeAddedAgainOnAnotherShard() {
        RobotView first = add(table(), "r1", "slot-0");
        assertEquals(
                1,
                db.database()
                        .getCollection("robots")
                        .deleteOne(Filters.eq("_id", "r1"))
                        .getDeletedCount());
        assertEquals(
                new RobotIds.Entry("r1", first.incarnation(), RobotIds.State.BOUND),
                ids.get("r1").orElseThrow());

        RobotView second = add(table(), "r1", "slot-1");

        assertNotEquals(first.incarnation(), second.incarnation(), "a new robot");
        assertEquals(
                new RobotIds.Entry("r1", second.incarnation(), RobotIds.State.BOUND),
                ids.get("r1").orElseThrow());
        assertEquals(1, stored("r1").size());
    }

    @Test
    void removingARobotNobodyRunsGivesItsIdBack() {
        add(table(), "r1", "slot-0");

        table().remove("r1");

        assertTrue(ids.get("r1").isEmpty());
        assertEquals("slot-1", add(table(), "r1", "slot-1").slotId());
    }

    @Test
    void anIdAnotherAddHasJustReservedIsRefusedUntilThatAddEnds() {
        assertTrue(ids.reserve("r1", "elsewhere"));

        assertRefused("'r1' is being added; try again", () -> add(table(), "r1", "slot-1"));

        assertTrue(stored("r1").isEmpty());
    }

    /**
     * An add stalls after inserting its robot, past the reservation's time; a second add takes the id over. The stalled
     * add's robot never becomes startable: the takeover deletes it, and its own bind fails.
     */
    @Test
    void aStaleReservationIsTakenOverAndTheStalledAddsRobotNeverBecomesStartable() {
        List<String> seen = new ArrayList<>();
        RobotDocuments stalling = new Stalling(robots, () -> {
            String slow = ids.get("r1").orElseThrow().incarnation();
            // As if the reservation were made a while ago, by the server's clock.
            db.database()
                    .getCollection(RobotIdRules.COLLECTION)
                    .updateOne(
                            Filters.eq("_id", "r1"),
                            Updates.set(
                                    "at",
                                    new Date(System.currentTimeMillis() - 2 * RobotIdRules.RESERVATION.toMillis())));
            add(table(), "r1", "slot-1");
            stored("r1").forEach(doc -> seen.add(doc.getString("incarnation").equals(slow) + " " + doc.get("desired")));
        });
        RobotTable stalled = new RobotTable(stalling, ids, slots);

        assertRefused("'r1' was not added", () -> add(stalled, "r1", "slot-0"));

        assertEquals(
                List.of("false running"), seen, "only the second add's robot, once the takeover deleted the first");
        List<Document> left = stored("r1");
        assertEquals(1, left.size());
        assertEquals("slot-1", left.getFirst().getString("slotId"));
        assertEquals(
                new RobotIds.Entry("r1", left.getFirst().getString("incarnation"), RobotIds.State.BOUND),
                ids.get("r1").orElseThrow());
    }

    /** A robot from before the registry has no entry: the add's read of the robots finds it on any shard. */
    @Test
    void aRobotFromBeforeTheRegistryIsRefusedAndItsIdIsNotHeld() {
        assertTrue(robots.insert(RobotCodec.newRobot("old", "counter", "slot-1", 0, 1, new Document())));

        assertRefused("'old' already exists (in slot-1)", () -> add(table(), "old", "slot-0"));

        assertEquals(1, stored("old").size());
        assertTrue(ids.get("old").isEmpty());
    }

    /** The sharded robots, with {@code stall} run once, just after the next insert. */
    private static final class Stalling implements RobotDocuments {
        private final RobotDocuments robots;
        private Runnable stall;

        Stalling(RobotDocuments robots, Runnable stall) {
            this.robots = robots;
            this.stall = stall;
        }

        @Override
        public List<Document> find(Bson filter, List<String> exclude, int limit) {
            return robots.find(filter, exclude, limit);
        }

        @Override
        public boolean insert(Document robot) {
            boolean inserted = robots.insert(robot);
            Runnable once = stall;
            stall = null;
            if (once != null) {
                once.run();
            }
            return inserted;
        }

        @Override
        public long update(RobotRules.Change change) {
            return robots.update(change);
        }

        @Override
        public long revoke(String slotId, long epoch) {
            return robots.revoke(slotId, epoch);
        }

        @Override
        public boolean deleteIdle(RobotView robot) {
            return robots.deleteIdle(robot);
        }

        @Override
        public boolean deleteAdding(String id, String incarnation) {
            return robots.deleteAdding(id, incarnation);
        }

        @Override
        public boolean handOver(RobotRules.HandOver handOver) {
            return robots.handOver(handOver);
        }

        @Override
        public List<Document> countBySlotAndState() {
            return robots.countBySlotAndState();
        }
    }
}
