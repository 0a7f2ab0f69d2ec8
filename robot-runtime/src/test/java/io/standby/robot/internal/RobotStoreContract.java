package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.CommandLog;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fencing operations, one step at a time, on each kind of database the project supports: the subclasses choose it
 * (embedded always; a real MongoDB by URI or in Docker where available).
 */
abstract class RobotStoreContract {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(this::uri);

    private StandbyDatabase db;
    private RobotStore store;
    private MongoCollection<Document> robots;

    protected abstract String uri();

    @BeforeEach
    void setUp() {
        db = database.connection();
        store = new MongoRobotStore(db);
        robots = db.database().getCollection(RobotFields.COLLECTION);
        for (String id : List.of("r1", "r2", "r3")) {
            robots.insertOne(RobotCodec.newRobot(id, "counter", "slot-0", 0, 1, new Document()));
        }
    }

    /** The hand-over of a robot, as read in the state every robot here is added in. */
    private static boolean handOver(RobotStore store, RobotToken token, String toSlot) {
        return store.handOver(RobotRules.handOver(token, RobotState.PENDING, toSlot));
    }

    private Document doc(String id) {
        return robots.find(Filters.eq("_id", id)).first();
    }

    /** The token a run of the robot would hold now, fenced at {@code epoch} in slot-0. */
    private RobotToken token(String id, long epoch) {
        Document doc = doc(id);
        return new RobotToken(
                id,
                doc.getString(RobotFields.INCARNATION),
                "slot-0",
                epoch,
                doc.get(RobotFields.FENCES) instanceof Number n ? n.longValue() : 0);
    }

    private static RobotWrite checkpoint(RobotToken token, long seq, int count) {
        return RobotWrite.checkpoint(token, seq, new Document("count", count));
    }

    private int countOf(String id) {
        return doc(id).get("context", Document.class).getInteger("count");
    }

    @Test
    void aFenceRaisesTheEpochCountsItselfRestartsTheSequencesAndTakeMarksOnlyRunnableRobots() {
        robots.updateOne(
                Filters.eq("_id", "r1"), Updates.combine(Updates.set("seq", 41L), Updates.set("statusSeq", 7L)));
        assertEquals(3, store.fence("slot-0", 4, null));
        assertEquals(0, store.fence("slot-0", 4, null), "fencing twice at one epoch changes nothing");
        assertEquals(0L, doc("r1").getLong("seq"));
        assertEquals(0L, doc("r1").getLong("statusSeq"));
        assertEquals(1L, doc("r1").getLong("fences"));
        robots.updateOne(Filters.eq("_id", "r2"), new Document("$set", new Document("desired", "stopped")));
        robots.updateOne(Filters.eq("_id", "r3"), new Document("$set", new Document("node", "10.0.0.9:1")));

        assertEquals(
                1,
                store.take("slot-0", 4, List.of("r1", "r2", "r3"), "127.0.0.1:1"),
                "the count says how many it took, which lets a node skip reading them again");

        assertEquals("127.0.0.1:1", doc("r1").getString("node"));
        assertEquals(RobotState.STARTING.name(), doc("r1").getString("state"));
        assertNull(doc("r2").getString("node"), "a stopped robot is not taken");
        assertEquals("10.0.0.9:1", doc("r3").getString("node"), "a robot another node runs is not taken");
        assertEquals(3, store.load("slot-0", 4, null).size());
        assertEquals(
                1,
                store.take("slot-0", 4, List.of("r1"), "127.0.0.1:1"),
                "a robot already taken at this epoch is still this node's");
        assertEquals(0, store.take("slot-0", 4, List.of("r1"), "10.0.0.9:1"), "nor another node's");
        assertEquals(0, store.take("slot-0", 3, List.of("r1"), "127.0.0.1:1"), "nor an earlier epoch's");
    }

    /**
     * Two runs of one robot under one lease (stopped and started, or paused and resumed) must not share a token: a late
     * final status of the first, landing after the second's take, would otherwise say the robot is not running while
     * the second runs, and a move or removal would go ahead.
     */
    @Test
    void everyTakeGivesTheRobotANewTokenSoAnEarlierRunsLateWritesMatchNothing() throws Exception {
        store.fence("slot-0", 4, null);
        assertEquals(1, store.take("slot-0", 4, List.of("r1"), "127.0.0.1:1"));
        RobotToken first = RobotToken.of(store.load("slot-0", 4, List.of("r1")).getFirst());
        assertEquals(1, store.write(List.of(RobotWrite.status(first, 5, new Document("state", "RUNNING")))));
        assertEquals(1, store.write(List.of(checkpoint(first, 6, 1))));

        assertEquals(
                1,
                store.take("slot-0", 4, List.of("r1"), "127.0.0.1:1"),
                "taken again by the same node, under the same lease");
        RobotToken second = RobotToken.of(store.load("slot-0", 4, List.of("r1")).getFirst());

        assertNotEquals(first, second, "a second run has a token of its own");
        assertEquals(
                0,
                store.write(
                        List.of(RobotWrite.status(first, 7, new Document("state", "STOPPED").append("node", null)))),
                "the first run's late final status matches nothing");
        assertEquals("127.0.0.1:1", doc("r1").getString("node"));
        assertEquals(
                1,
                store.write(List.of(RobotWrite.status(second, 1, new Document("state", "RUNNING")))),
                "the second run's writes start their sequences anew");
        assertEquals(1, store.write(List.of(checkpoint(second, 1, 2))));
        assertEquals(2, countOf("r1"), "and its checkpoint lands");
    }

    @Test
    void aWriteUnderAStaleTokenIsRejectedAndChangesNothing() throws Exception {
        store.fence("slot-0", 1, null);
        try (WriteBatcher writes = new WriteBatcher(store)) {
            assertTrue(writes.submit(checkpoint(token("r1", 1), 1, 5)).get(10, TimeUnit.SECONDS));
            store.fence("slot-0", 2, null); // a new owner
            assertFalse(
                    writes.submit(checkpoint(token("r1", 1), 2, 6)).get(10, TimeUnit.SECONDS),
                    "the old owner's write is reported fenced");
            assertTrue(writes.submit(checkpoint(token("r2", 2), 3, 1)).get(10, TimeUnit.SECONDS));
        }
        assertEquals(5, countOf("r1"));
        assertEquals(2L, doc("r1").getLong("epoch"));
        assertEquals(1, countOf("r2"));
    }

    @Test
    void aLateCopyOfAnOlderCheckpointMatchesNothingAndASecondCopyOfOneThatLandedIsReportedWritten() throws Exception {
        store.fence("slot-0", 1, null);
        RobotToken token = token("r1", 1);
        assertEquals(1, store.write(List.of(checkpoint(token, 10, 1))));
        assertEquals(1, store.write(List.of(checkpoint(token, 11, 2))));

        assertEquals(0, store.write(List.of(checkpoint(token, 10, 1))), "the late copy of seq 10 arrives after seq 11");
        assertEquals(2, countOf("r1"), "and changes nothing");

        try (WriteBatcher writes = new WriteBatcher(store)) {
            assertTrue(
                    writes.submit(checkpoint(token, 11, 2)).get(10, TimeUnit.SECONDS),
                    "a retry of a write that had landed is acknowledged, not fenced");
            assertTrue(
                    writes.submit(RobotWrite.status(token, 3, new Document("state", "RUNNING")))
                            .get(10, TimeUnit.SECONDS),
                    "status writes are ordered apart from checkpoints");
        }
        assertEquals(11L, doc("r1").getLong("seq"));
        assertEquals(3L, doc("r1").getLong("statusSeq"));
    }

    @Test
    void aRobotThatLeavesASlotAndComesBackUnderTheSameLeaseHasANewTokenThatNoLateCopyOfItsEarlierRunMatches() {
        store.fence("slot-0", 5, null);
        RobotToken before = token("r1", 5);
        assertEquals(1, store.write(List.of(checkpoint(before, 11, 1))));
        assertEquals(1, store.write(List.of(checkpoint(before, 12, 2))));
        // Moved away and back while the same node holds slot-0 at epoch 5.
        assertTrue(handOver(store, before, "slot-1"));
        robots.updateOne(
                Filters.eq("_id", "r1"), Updates.combine(Updates.set("slotId", "slot-0"), Updates.set("epoch", 0L)));
        assertEquals(1, store.fence("slot-0", 5, List.of("r1")));
        RobotToken after = token("r1", 5);
        assertNotEquals(before, after);

        assertEquals(0, store.write(List.of(checkpoint(before, 11, 1))), "a late copy of a checkpoint from before");
        assertFalse(handOver(store, before, "slot-1"), "a late copy of the hand-over from before");
        assertEquals(2, countOf("r1"));
        assertEquals("slot-0", doc("r1").getString("slotId"));
        assertEquals(1, store.write(List.of(checkpoint(after, 1, 3))), "the new run's first checkpoint");
    }

    @Test
    void aWriteAppliesExactlyWhenItsConditionSaysSo() {
        store.fence("slot-0", 1, null);
        RobotToken live = token("r1", 1);
        assertEquals(
                2,
                store.write(
                        List.of(checkpoint(live, 5, 1), RobotWrite.status(live, 5, new Document("state", "RUNNING")))));
        List<RobotWrite> cases = List.of(
                checkpoint(live, 4, 9),
                checkpoint(live, 5, 9),
                checkpoint(live, 6, 9),
                RobotWrite.status(live, 5, new Document("restarts", 1)),
                RobotWrite.status(live, 8, new Document("restarts", 2)),
                checkpoint(new RobotToken("r1", live.incarnation(), "slot-0", 0, live.fences()), 9, 9),
                checkpoint(new RobotToken("r1", "an-older-incarnation", "slot-0", 1, live.fences()), 9, 9),
                checkpoint(new RobotToken("r1", live.incarnation(), "slot-1", 1, live.fences()), 9, 9),
                checkpoint(new RobotToken("r1", live.incarnation(), "slot-0", 1, live.fences() + 1), 9, 9),
                checkpoint(new RobotToken("gone", null, "slot-0", 1, 1), 9, 9));
        for (RobotWrite write : cases) {
            boolean predicted = write.appliesTo(store.stored(List.of(live.robotId(), "gone"))
                    .get(write.token().robotId()));
            assertEquals(
                    predicted ? 1 : 0, store.write(List.of(write)), "the database and appliesTo disagree on " + write);
        }
    }

    @Test
    void aHandOverMovesTheRobotWithItsContextOnlyUnderTheCurrentToken() {
        store.fence("slot-0", 3, null);
        robots.updateOne(
                Filters.eq("_id", "r1"),
                new Document("$set", new Document("context", new Document("count", 9)).append("target", "slot-1")));

        assertFalse(handOver(store, token("r1", 2), "slot-1"), "a stale runner cannot hand it over");
        assertFalse(
                handOver(store, new RobotToken("r1", "another", "slot-0", 3, 1), "slot-1"),
                "nor a run of another incarnation");
        assertTrue(handOver(store, token("r1", 3), "slot-1"));

        Document moved = doc("r1");
        assertEquals("slot-1", moved.getString("slotId"));
        assertEquals(0L, moved.getLong("epoch"));
        assertFalse(moved.containsKey("target"));
        assertEquals(9, moved.get("context", Document.class).getInteger("count"));
        assertEquals(RobotState.PENDING.name(), moved.getString("state"));
    }

    @Test
    void aHandOverTellsTheNewSlotsOwnerAndKeepsAFailureOnlyWhileTheRobotIsStillFailed() {
        db.database()
                .getCollection(SlotTable.COLLECTION)
                .insertOne(new Document("_id", "slot-1").append(SlotTable.CHANGES, 5L));
        store.fence("slot-0", 3, null);
        robots.updateOne(Filters.eq("_id", "r2"), Updates.set("state", RobotState.FAILED.name()));

        assertFalse(
                store.handOver(RobotRules.handOver(token("r1", 3), RobotState.FAILED, "slot-1")),
                "r1 is not failed (an operator's start cleared it since the read, say)");
        assertFalse(
                store.handOver(RobotRules.handOver(token("r2", 3), RobotState.PENDING, "slot-1")),
                "r2 failed since the read");
        assertEquals(5L, slotChanges("slot-1"), "nothing moved, nobody told");
        assertTrue(store.handOver(RobotRules.handOver(token("r2", 3), RobotState.FAILED, "slot-1")));

        assertEquals("slot-1", doc("r2").getString("slotId"));
        assertEquals(RobotState.FAILED.name(), doc("r2").getString("state"), "a move is no start");
        assertEquals(6L, slotChanges("slot-1"), "the new slot's owner is told");
    }

    private long slotChanges(String slotId) {
        return db.database()
                .getCollection(SlotTable.COLLECTION)
                .find(Filters.eq("_id", slotId))
                .first()
                .getLong(SlotTable.CHANGES);
    }

    @Test
    void aRobotIsDeletedOnlyWhenItsRemovalWasRequestedAndOnlyUnderItsToken() {
        store.fence("slot-0", 2, null);
        assertFalse(store.delete(token("r1", 2)), "no removal was requested");
        robots.updateOne(Filters.eq("_id", "r1"), Updates.set("desired", "removed"));
        assertFalse(store.delete(token("r1", 1)), "a stale runner cannot delete it");
        assertFalse(store.delete(new RobotToken("r1", "another", "slot-0", 2, 1)), "nor a run of another incarnation");
        assertTrue(store.delete(token("r1", 2)));
        assertNull(doc("r1"));
    }

    @Test
    void eachAddIsANewIncarnation() {
        Document a = RobotCodec.newRobot("x", "counter", "slot-0", 0, 1, new Document());
        Document b = RobotCodec.newRobot("x", "counter", "slot-0", 0, 1, new Document());
        assertNotEquals(a.getString("incarnation"), b.getString("incarnation"));
    }

    @Test
    void writesQueuedTogetherAreMergedPerRobotAndKindAndTheLastValueWins() throws Exception {
        store.fence("slot-0", 1, null);
        try (WriteBatcher writes = new WriteBatcher(store)) {
            var first = writes.submit(checkpoint(token("r1", 1), 1, 1));
            var second = writes.submit(checkpoint(token("r1", 1), 2, 2));
            var status = writes.submit(RobotWrite.status(token("r1", 1), 3, new Document("state", "RUNNING")));
            var other = writes.submit(checkpoint(token("r2", 1), 4, 7));
            assertTrue(first.get(10, TimeUnit.SECONDS)
                    && second.get(10, TimeUnit.SECONDS)
                    && status.get(10, TimeUnit.SECONDS)
                    && other.get(10, TimeUnit.SECONDS));
        }
        assertEquals(2, countOf("r1"));
        assertEquals("RUNNING", doc("r1").getString("state"));
        assertEquals(7, countOf("r2"));
    }

    @Test
    void theWatchedFieldsOfSeveralSlotsComeInOneReadWithoutContexts() {
        robots.updateOne(
                Filters.eq("_id", "r3"),
                new Document(
                        "$set",
                        new Document("slotId", "slot-1").append("context", new Document("big", "x".repeat(1000)))));
        List<RobotView> watched = store.watch(List.of("slot-0", "slot-1"));
        assertEquals(
                List.of("r1", "r2", "r3"),
                watched.stream().map(RobotView::id).sorted().toList());
        assertTrue(
                watched.stream()
                        .allMatch(r -> r.context().isEmpty() && r.config().isEmpty()),
                "contexts are not read");
        assertTrue(watched.stream().allMatch(r -> r.incarnation() != null), "incarnations are watched");
        Map<String, RobotStore.Stored> stored = store.stored(List.of("r1", "r3", "gone"));
        assertEquals(2, stored.size());
        assertEquals(token("r1", 0), stored.get("r1").token());
    }

    @Test
    void aWriteTheDriverRefusesFailsAloneAndTheOthersInItsBulkGoThrough() throws Exception {
        store.fence("slot-0", 1, null);
        try (WriteBatcher writes = new WriteBatcher(store)) {
            var huge = writes.submit(
                    RobotWrite.checkpoint(token("r1", 1), 1, new Document("blob", "x".repeat(17_000_000))));
            var fine = writes.submit(checkpoint(token("r2", 1), 2, 3));
            var refused = assertThrows(ExecutionException.class, () -> huge.get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof IllegalArgumentException, refused.toString());
            assertTrue(fine.get(30, TimeUnit.SECONDS));
        }
        assertEquals(3, countOf("r2"));
        assertEquals(new Document(), doc("r1").get("context", Document.class));
    }

    @Test
    void everyReadIsFromThePrimaryWithMajorityReadConcernAndEveryWriteWaitsForAMajorityWhateverTheUriSays()
            throws Exception {
        CommandLog commands = new CommandLog();
        try (StandbyDatabase loose = StandbyDatabase.connect(
                CommandLog.withOptions(uri(), CommandLog.LOOSE_OPTIONS),
                db.database().getName(),
                Duration.ofSeconds(10),
                s -> s.addCommandListener(commands))) {
            RobotStore looseStore = new MongoRobotStore(loose);
            looseStore.fence("slot-0", 1, null);
            looseStore.take("slot-0", 1, List.of("r1", "r2"), "127.0.0.1:1");
            assertEquals(3, looseStore.load("slot-0", 1, null).size());
            assertEquals(3, looseStore.watch(List.of("slot-0")).size());
            try (WriteBatcher writes = new WriteBatcher(looseStore)) {
                assertTrue(writes.submit(checkpoint(token("r1", 1), 1, 1)).get(10, TimeUnit.SECONDS));
                assertFalse(writes.submit(checkpoint(token("r2", 0), 2, 1)).get(10, TimeUnit.SECONDS));
            }
            assertTrue(handOver(looseStore, token("r3", 1), "slot-1"));
        }
        assertTrue(
                commands.assertSafe(RobotFields.COLLECTION) >= 8,
                "reads and writes were checked: " + commands.on(RobotFields.COLLECTION));
    }
}
