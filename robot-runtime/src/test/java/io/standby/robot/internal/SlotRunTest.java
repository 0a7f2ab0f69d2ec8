package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.internal.RecordingRuns.RecordingRun;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotState;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.ApiAccess;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The robots of one slot under one lease, on the embedded server with recording runs: what the begin fences, takes and
 * starts, and in which order; what a reconcile does about each operator change; that a loss interrupts every run at
 * once; that a graceful release asks every robot to stop, interrupts only those that overrun one shared deadline, and
 * waits for them all. About a second.
 */
class SlotRunTest {

    private static final String NODE = "127.0.0.1:1";
    /** Other than {@link RobotRun#FINAL_WRITE}, so that the two waits can be told apart. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(7);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private MongoCollection<Document> robots;
    private MongoCollection<Document> slotDocs;
    private HookedStore store;
    private FailingTouches touches;
    private final RecordingRuns runs = new RecordingRuns();
    /** Status writes the slot sent, applied to the store as the write batcher would. */
    private final List<RobotWrite> writes = new CopyOnWriteArrayList<>();

    private final FixedLease lease = FixedLease.valid();
    private SlotRun slot;

    @BeforeEach
    void setUp() {
        StandbyDatabase db = database.connection();
        touches = new FailingTouches(new MongoSlotStore(db), 0);
        store = new HookedStore(new MongoRobotStore(db.database(), ApiAccess.slotTable(touches)));
        robots = db.database().getCollection(RobotFields.COLLECTION);
        slotDocs = db.database().getCollection(SlotTable.COLLECTION);
        RobotWrites sent = write -> {
            writes.add(write);
            return CompletableFuture.completedFuture(store.write(List.of(write)) == 1);
        };
        slot = new SlotRun(lease, new RuntimeCore(store, sent, new WriteSequence(), NODE, runs, runs.clock));
    }

    private void add(String id, String slotId, int priority, Bson... changes) {
        robots.insertOne(RobotCodec.newRobot(id, "counter", slotId, priority, 1, new Document()));
        for (Bson change : changes) {
            robots.updateOne(Filters.eq("_id", id), change);
        }
    }

    private Document doc(String id) {
        return robots.find(Filters.eq("_id", id)).first();
    }

    private void reconcile() {
        slot.reconcile(store.watch(List.of(lease.slotId())));
    }

    // --- begin ---

    @Test
    void beginFencesEveryRobotOfTheSlotAtTheLeaseEpochAndStartsTheRunnableOnesMostImportantFirst() {
        add("a0", "slot-0", 0);
        add("p2", "slot-0", 5);
        add("p1", "slot-0", 5);
        // Interrupted by its former runner, which never stopped it: first among equals (the start order).
        add("p3", "slot-0", 5, Updates.combine(Updates.set("state", "RUNNING"), Updates.set("node", "127.0.0.1:9")));
        add("p4", "slot-0", 5, Updates.combine(Updates.set("state", "STARTING"), Updates.set("node", "127.0.0.1:9")));
        add("f", "slot-0", 9, Updates.set("state", "FAILED"));
        add("other", "slot-1", 9);

        assertFalse(slot.begun());

        slot.begin();

        assertEquals(
                List.of("p3", "p4", "p1", "p2", "a0"), runs.launchedIds(), "priority, then interrupted ones, then id");
        for (String id : List.of("a0", "p1", "p2", "p3", "p4", "f")) {
            assertEquals(4L, doc(id).getLong("epoch"), id + " fenced at the lease's epoch");
        }
        assertEquals(0L, doc("other").getLong("epoch"), "another slot's robot is not touched");
        assertEquals("FAILED", doc("f").getString("state"), "a robot that failed for good is not started");
        assertEquals(1, slot.failed());
        assertTrue(slot.begun());
        assertFalse(slot.ended());
        assertEquals(List.of("a0", "p1", "p2", "p3", "p4"), slot.running());
        RecordingRun p3 = runs.run("p3");
        assertEquals(RobotState.STARTING, p3.robot.state());
        assertEquals(NODE, p3.robot.node());
        assertEquals(doc("p3").getLong("fences"), p3.token().fences(), "the run holds the document's token");
        assertEquals(lease, p3.lease);
    }

    @Test
    void beginSettlesTheRobotsNobodyRunsAsTheOperatorAsked() {
        slotDocs.insertOne(new Document("_id", "slot-1").append("changes", 3L));
        add("removed", "slot-0", 0, Updates.set("desired", "removed"));
        add("moving", "slot-0", 0, Updates.set("target", "slot-1"));
        add(
                "stopped",
                "slot-0",
                0,
                Updates.combine(
                        Updates.set("desired", "stopped"),
                        Updates.set("state", "RUNNING"),
                        Updates.set("node", "127.0.0.1:9")));
        add("atRest", "slot-0", 0, Updates.combine(Updates.set("desired", "stopped"), Updates.set("state", "STOPPED")));

        slot.begin();

        assertEquals(List.of(), runs.launchedIds());
        assertNull(doc("removed"), "removal requested and nobody runs it: deleted");
        Document moved = doc("moving");
        assertEquals("slot-1", moved.getString(RobotFields.SLOT));
        assertEquals(0L, moved.getLong("epoch"), "its new slot's owner fences it");
        assertEquals("PENDING", moved.getString("state"));
        assertEquals(
                4L,
                slotDocs.find(Filters.eq("_id", "slot-1")).first().getLong("changes"),
                "the new slot's owner is told to read its robots");
        assertEquals("STOPPED", doc("stopped").getString("state"));
        assertNull(doc("stopped").getString("node"));
        assertEquals(
                List.of("stopped"),
                writes.stream().map(w -> w.token().robotId()).toList(),
                "a robot already recorded as stopped needs no write");
    }

    @Test
    void aHandOverKeepsAStateThatNeedsNoRunnerAndClearsOneThatClaimsARunner() {
        // Failed, or stopped, while a move was pending: the move is no start (only `start` clears a failure),
        // as when the operator moves such a robot directly.
        add("failed", "slot-0", 0, Updates.combine(Updates.set("target", "slot-1"), Updates.set("state", "FAILED")));
        add(
                "stopped",
                "slot-0",
                0,
                Updates.combine(
                        Updates.set("target", "slot-1"),
                        Updates.set("desired", "stopped"),
                        Updates.set("state", "STOPPED")));
        add("fenced", "slot-0", 0, Updates.combine(Updates.set("target", "slot-1"), Updates.set("state", "RUNNING")));

        slot.begin();

        for (String id : List.of("failed", "stopped", "fenced")) {
            assertEquals("slot-1", doc(id).getString(RobotFields.SLOT), id + " handed over");
        }
        assertEquals("FAILED", doc("failed").getString("state"));
        assertEquals("STOPPED", doc("stopped").getString("state"));
        assertEquals("PENDING", doc("fenced").getString("state"), "nobody runs it now");
    }

    @Test
    void aHandOverWhoseFirstTellingFailsTellsOnTheSecondTryAndTheBeginGoesOn() {
        slotDocs.insertOne(new Document("_id", "slot-1").append("changes", 3L));
        add("moving", "slot-0", 5, Updates.set("target", "slot-1"));
        add("runnable", "slot-0", 0);
        touches.failures = 1;

        slot.begin();

        assertEquals("slot-1", doc("moving").getString(RobotFields.SLOT));
        assertEquals(
                4L, slotDocs.find(Filters.eq("_id", "slot-1")).first().getLong("changes"), "told on the second try");
        assertEquals(List.of("runnable"), runs.launchedIds(), "a failed telling stops nothing else");
    }

    @Test
    void aRobotRemovedBetweenTheFenceAndTheLoadIsNotStarted() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        // An operator's removal of a robot that a node runs, as RobotTable does it, lands just before the load,
        // after the write that fenced and took it.
        store.beforeLoad = () -> robots.updateOne(Filters.eq("_id", "r2"), Updates.set("desired", "removed"));

        slot.begin();

        assertEquals(List.of("r1"), runs.launchedIds());
        assertEquals(null, doc("r2"), "deleted by this lease's owner, under its token");
    }

    @Test
    void aSlotLostBeforeItsBeginStartsNoRobot() {
        add("r1", "slot-0", 0);
        slot.lost();

        slot.begin();

        assertEquals(List.of(), runs.launchedIds(), "the loss came from the protocol's thread first");
        assertTrue(slot.ended());
        assertEquals(List.of(), slot.running());
    }

    // --- reconcile ---

    @Test
    void aReconcileAppliesEachOperatorChangeToTheRunningRobots() {
        for (String id : List.of("keep", "stop", "move", "remove", "fenced", "deleted", "readded")) {
            add(id, "slot-0", 0);
        }
        slot.begin();
        robots.updateOne(Filters.eq("_id", "stop"), Updates.set("desired", "stopped"));
        robots.updateOne(Filters.eq("_id", "move"), Updates.set("target", "slot-1"));
        robots.updateOne(Filters.eq("_id", "remove"), Updates.set("desired", "removed"));
        robots.updateOne(Filters.eq("_id", "fenced"), Updates.set("epoch", 5L));
        robots.deleteOne(Filters.eq("_id", "deleted"));
        robots.deleteOne(Filters.eq("_id", "readded"));
        add("readded", "slot-0", 0);

        reconcile();

        assertEquals(List.of("resend"), runs.run("keep").asked, "runs as it should");
        assertEquals(List.of("stop OPERATOR"), runs.run("stop").asked);
        assertEquals(List.of("stop MOVE slot-1"), runs.run("move").asked);
        assertEquals(List.of("interrupt removed"), runs.run("remove").asked);
        assertEquals(List.of("interrupt"), runs.run("fenced").asked, "a later owner holds its token");
        assertEquals(List.of("interrupt removed"), runs.run("deleted").asked, "gone from the slot");
        assertEquals(List.of("interrupt removed"), runs.run("readded").asked, "the old incarnation of readded");
        assertEquals(7, runs.launched.size(), "the new incarnation waits until the old run has ended");
    }

    @Test
    void aRobotNewToTheSlotIsFencedTakenAndStartedAtTheNextReconcile() {
        add("r1", "slot-0", 0);
        slot.begin();
        add("r2", "slot-0", 0);
        add("elsewhere", "slot-1", 0);

        reconcile();

        assertEquals(List.of("r1", "r2"), runs.launchedIds());
        assertEquals(4L, doc("r2").getLong("epoch"));
        assertEquals("STARTING", doc("r2").getString("state"));
        assertEquals(NODE, doc("r2").getString("node"));
        assertEquals(doc("r2").getLong("fences"), runs.run("r2").token().fences());
        assertEquals(0L, doc("elsewhere").getLong("epoch"));

        robots.deleteOne(Filters.eq("_id", "r2"));
        reconcile();
        assertEquals(
                List.of("interrupt removed"), runs.run("r2").asked, "a robot first seen at a reconcile is watched too");
    }

    @Test
    void aReconcileCountsTheRobotsThatFailedForGood() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();
        assertEquals(0, slot.failed());
        robots.updateMany(Filters.exists("_id"), Updates.set("state", "FAILED"));

        reconcile();

        assertEquals(2, slot.failed());
    }

    @Test
    void aRobotThatLeftTheSlotIsInterruptedOnceAndOnlyAsLongAsItRuns() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();
        runs.run("r1").ignoresInterrupt = true;
        robots.deleteMany(Filters.exists("_id"));

        reconcile();
        reconcile();

        assertEquals(List.of("interrupt removed"), runs.run("r1").asked, "left once: stopped once");
        assertEquals(List.of("interrupt removed"), runs.run("r2").asked);
        assertEquals(List.of("r1"), slot.running(), "a robot that ignores interruption still shows as running");
    }

    @Test
    void statusesAreSentAgainOnlyForRunsStillAlive() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();
        runs.run("r2").alive = false;

        slot.resendStatuses();

        assertEquals(List.of("resend"), runs.run("r1").asked);
        assertEquals(List.of(), runs.run("r2").asked);
        assertEquals(List.of("r1"), slot.running());
    }

    // --- loss ---

    @Test
    void aLostSlotInterruptsEveryRunAtOnceAndStartsNothingMore() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();

        slot.lost();

        assertEquals(List.of("interrupt"), runs.run("r1").asked, "a loss is not a removal: the document stays");
        assertEquals(List.of("interrupt"), runs.run("r2").asked);
        assertTrue(slot.ended());
        assertEquals(List.of(), slot.running());
        assertEquals(List.of(), runs.run("r1").awaits, "a loss never blocks the protocol's thread");
    }

    @Test
    void afterALossTheInterruptedRunsAreAwaitedWithinOneSharedGrace() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();
        runs.run("r1").ignoresInterrupt = true;
        runs.run("r2").ignoresInterrupt = true;
        slot.lost();

        slot.awaitInterrupted();

        assertEquals(
                List.of(Duration.ZERO, RobotRun.FINAL_WRITE),
                runs.launched.stream().flatMap(r -> r.awaits.stream()).sorted().toList(),
                "one grace for all, not one each");
    }

    @Test
    void anInterruptedWaitForTheLostRunsKeepsTheInterrupt() {
        add("r1", "slot-0", 0);
        slot.begin();
        runs.run("r1").awaitIsInterrupted = true;
        slot.lost();

        slot.awaitInterrupted();

        assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
    }

    // --- graceful release ---

    @Test
    void aReleaseAsksEveryRobotToStopAndInterruptsOnlyThoseStillRunningAtOneSharedDeadline() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        add("r3", "slot-0", 0);
        slot.begin();
        long asked = runs.clock.nanoTime();
        runs.run("r1").stopTakes = Duration.ofSeconds(4);
        runs.run("r2").stopTakes = Duration.ofSeconds(6);
        runs.run("r3").stopTakes = Duration.ofSeconds(9);

        slot.release(STOP_TIMEOUT);

        assertEquals(List.of("stop RELEASE"), runs.run("r1").asked);
        assertEquals(List.of("stop RELEASE"), runs.run("r2").asked);
        assertEquals(
                List.of("stop RELEASE", "interrupt"), runs.run("r3").asked, "still running when the timeout passed");
        assertEquals(
                asked + STOP_TIMEOUT.toNanos(), runs.run("r3").interruptedAt, "one deadline for all, not one each");
        assertEquals(asked + STOP_TIMEOUT.toNanos(), runs.clock.nanoTime(), "the release returns once they all ended");
        assertTrue(slot.ended());
        assertEquals(List.of(), slot.running());
    }

    @Test
    void aRobotWritingItsLastWordsIsNotInterruptedAndIsAwaitedForThem() {
        add("r1", "slot-0", 0);
        slot.begin();
        RecordingRun r1 = runs.run("r1");
        r1.ignoresStop = true;
        r1.finishing = true;

        slot.release(STOP_TIMEOUT);

        assertEquals(List.of("stop RELEASE"), r1.asked, "interrupting it now would only lose its final state");
        assertEquals(List.of(STOP_TIMEOUT, RobotRun.FINAL_WRITE), r1.awaits);
    }

    @Test
    void aReleaseReturnsAfterOneGraceEvenIfRobotsIgnoreInterruption() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();
        long asked = runs.clock.nanoTime();
        for (RecordingRun run : runs.launched) {
            run.ignoresStop = true;
            run.ignoresInterrupt = true;
        }

        slot.release(STOP_TIMEOUT);

        assertEquals(List.of("stop RELEASE", "interrupt"), runs.run("r1").asked);
        assertEquals(List.of("stop RELEASE", "interrupt"), runs.run("r2").asked);
        assertEquals(
                asked + STOP_TIMEOUT.plus(RobotRun.FINAL_WRITE).toNanos(),
                runs.clock.nanoTime(),
                "one deadline, then one grace, for all the robots together");
        assertEquals(
                List.of(Duration.ZERO, Duration.ZERO, STOP_TIMEOUT, RobotRun.FINAL_WRITE),
                runs.launched.stream().flatMap(r -> r.awaits.stream()).sorted().toList());
    }

    @Test
    void aReleaseWhoseThreadIsInterruptedInterruptsEveryRobotAndKeepsTheInterrupt() {
        add("r1", "slot-0", 0);
        add("r2", "slot-0", 0);
        slot.begin();
        runs.launched.forEach(r -> r.awaitIsInterrupted = true);

        slot.release(STOP_TIMEOUT);

        assertTrue(Thread.interrupted());
        assertEquals(List.of("stop RELEASE", "interrupt"), runs.run("r1").asked);
        assertEquals(List.of("stop RELEASE", "interrupt"), runs.run("r2").asked);
    }
}
