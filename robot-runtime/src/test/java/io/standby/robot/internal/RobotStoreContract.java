package io.standby.robot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.standby.robot.RobotState;
import io.standby.robot.RobotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fencing operations, one step at a time, on each kind of database the project supports: the
 * subclasses choose it (embedded always; a real MongoDB by URI or in Docker where available).
 */
abstract class RobotStoreContract {

    private StandbyDatabase db;
    private RobotStore store;
    private MongoCollection<Document> robots;

    protected abstract String uri();

    @BeforeEach
    void setUp(TestInfo test) {
        db = StandbyDatabase.connect(uri(), TestMongo.freshDatabase(test.getTestMethod().orElseThrow().getName()),
                Duration.ofSeconds(10), null);
        store = new RobotStore(db.database());
        robots = db.database().getCollection(RobotFields.COLLECTION);
        for (String id : List.of("r1", "r2", "r3")) {
            robots.insertOne(RobotCodec.newRobot(id, "counter", "slot-0", 0, 1, new Document()));
        }
    }

    @AfterEach
    void tearDown() {
        db.database().drop();
        db.close();
    }

    private Document doc(String id) {
        return robots.find(Filters.eq("_id", id)).first();
    }

    @Test
    void aFenceRaisesTheEpochAndTakeMarksOnlyRunnableRobots() {
        assertEquals(3, store.fence("slot-0", 4, null));
        assertEquals(0, store.fence("slot-0", 4, null), "fencing twice at one epoch changes nothing");
        robots.updateOne(Filters.eq("_id", "r2"), new Document("$set", new Document("desired", "stopped")));
        robots.updateOne(Filters.eq("_id", "r3"), new Document("$set", new Document("node", "10.0.0.9:1")));

        store.take("slot-0", 4, List.of("r1", "r2", "r3"), "127.0.0.1:1");

        assertEquals("127.0.0.1:1", doc("r1").getString("node"));
        assertEquals(RobotState.STARTING.name(), doc("r1").getString("state"));
        assertEquals(null, doc("r2").getString("node"), "a stopped robot is not taken");
        assertEquals("10.0.0.9:1", doc("r3").getString("node"), "a robot another node runs is not taken");
        List<RobotView> loaded = store.load("slot-0", 4, null);
        assertEquals(3, loaded.size());
    }

    @Test
    void aWriteUnderAStaleTokenIsRejectedAndChangesNothing() throws Exception {
        store.fence("slot-0", 1, null);
        try (WriteBatcher writes = new WriteBatcher(store)) {
            assertTrue(writes.submit("r1", "slot-0", 1, new Document("context", new Document("count", 5))).get(10, TimeUnit.SECONDS));
            store.fence("slot-0", 2, null);   // a new owner
            assertFalse(writes.submit("r1", "slot-0", 1, new Document("context", new Document("count", 6))).get(10, TimeUnit.SECONDS),
                    "the old owner's write is reported fenced");
            assertTrue(writes.submit("r2", "slot-0", 2, new Document("context", new Document("count", 1))).get(10, TimeUnit.SECONDS));
        }
        assertEquals(5, doc("r1").get("context", Document.class).getInteger("count"));
        assertEquals(2L, doc("r1").getLong("epoch"));
        assertEquals(1, doc("r2").get("context", Document.class).getInteger("count"));
    }

    @Test
    void aHandOverMovesTheRobotWithItsContextOnlyUnderTheCurrentToken() {
        store.fence("slot-0", 3, null);
        robots.updateOne(Filters.eq("_id", "r1"), new Document("$set", new Document("context", new Document("count", 9)).append("target", "slot-1")));

        assertFalse(store.handOver("r1", "slot-0", 2, "slot-1"), "a stale runner cannot hand it over");
        assertTrue(store.handOver("r1", "slot-0", 3, "slot-1"));

        Document moved = doc("r1");
        assertEquals("slot-1", moved.getString("slotId"));
        assertEquals(0L, moved.getLong("epoch"));
        assertFalse(moved.containsKey("target"));
        assertEquals(9, moved.get("context", Document.class).getInteger("count"));
        assertEquals(RobotState.PENDING.name(), moved.getString("state"));
    }

    @Test
    void writesQueuedTogetherAreMergedPerRobotAndTheLastValueWins() throws Exception {
        store.fence("slot-0", 1, null);
        try (WriteBatcher writes = new WriteBatcher(store)) {
            var first = writes.submit("r1", "slot-0", 1, new Document("context", new Document("count", 1)));
            var second = writes.submit("r1", "slot-0", 1, new Document("context", new Document("count", 2)).append("state", "RUNNING"));
            var other = writes.submit("r2", "slot-0", 1, new Document("context", new Document("count", 7)));
            assertTrue(first.get(10, TimeUnit.SECONDS) && second.get(10, TimeUnit.SECONDS) && other.get(10, TimeUnit.SECONDS));
        }
        assertEquals(2, doc("r1").get("context", Document.class).getInteger("count"));
        assertEquals("RUNNING", doc("r1").getString("state"));
        assertEquals(7, doc("r2").get("context", Document.class).getInteger("count"));
    }

    @Test
    void theWatchedFieldsOfSeveralSlotsComeInOneReadWithoutContexts() {
        robots.updateOne(Filters.eq("_id", "r3"), new Document("$set", new Document("slotId", "slot-1")
                .append("context", new Document("big", "x".repeat(1000)))));
        List<RobotView> watched = store.watch(List.of("slot-0", "slot-1"));
        assertEquals(List.of("r1", "r2", "r3"), watched.stream().map(RobotView::id).sorted().toList());
        assertTrue(watched.stream().allMatch(r -> r.context().isEmpty() && r.config().isEmpty()), "contexts are not read");
        assertEquals(Map.of("r1", "slot-0@0", "r3", "slot-1@0"), store.tokens(List.of("r1", "r3", "gone")));
    }

    @Test
    void aWriteTheDriverRefusesFailsAloneAndTheOthersInItsBulkGoThrough() throws Exception {
        store.fence("slot-0", 1, null);
        try (WriteBatcher writes = new WriteBatcher(store)) {
            var huge = writes.submit("r1", "slot-0", 1, new Document("context", new Document("blob", "x".repeat(17_000_000))));
            var fine = writes.submit("r2", "slot-0", 1, new Document("context", new Document("count", 3)));
            var refused = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> huge.get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof IllegalArgumentException, refused.toString());
            assertTrue(fine.get(30, TimeUnit.SECONDS));
        }
        assertEquals(3, doc("r2").get("context", Document.class).getInteger("count"));
        assertEquals(new Document(), doc("r1").get("context", Document.class));
    }
}
