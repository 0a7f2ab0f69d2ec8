package io.standby.robot.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.FencedException;
import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.robot.runtime.RobotListener;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.SlotTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One robot's run on the embedded server, from its start to its last words: no robot code without a valid lease, a
 * rejected write stops the run, restarts back off until a crash loop fails the robot, and each way a run ends leaves
 * the robot's document as the next runner needs it, with the final status last.
 */
class RobotRunTest {

    private static final Duration BOUND = Duration.ofSeconds(10);

    private final StoredRobots robots = new StoredRobots();
    private final HandLease lease = new HandLease();
    private final List<Document> events = new CopyOnWriteArrayList<>();
    private final List<String> told = new CopyOnWriteArrayList<>();
    private final AtomicInteger ran = new AtomicInteger();
    private final AtomicInteger ended = new AtomicInteger();
    /** Called by the listener when the run says it restarts: a test acts in the backoff. */
    private volatile Runnable onRestarting = () -> {};

    private final RobotListener listener = new RobotListener() {
        @Override
        public void checkpointed(String robotId, Duration latency) {
            told.add("checkpointed " + robotId);
        }

        @Override
        public void fenced(String robotId) {
            told.add("fenced " + robotId);
        }

        @Override
        public void restarting(String robotId) {
            told.add("restarting " + robotId);
            onRestarting.run();
        }

        @Override
        public void failed(String robotId) {
            told.add("failed " + robotId);
        }
    };
    private final StatusWrites writes = new StatusWrites(new WriteBatcher(robots.store));

    /** The batcher, with the next status write failed as if it never arrived when a test says so. */
    private static final class StatusWrites implements RobotWrites {
        final WriteBatcher batcher;
        final AtomicBoolean loseNextStatus = new AtomicBoolean();
        final List<CompletableFuture<Boolean>> statuses = new CopyOnWriteArrayList<>();

        StatusWrites(WriteBatcher batcher) {
            this.batcher = batcher;
        }

        @Override
        public CompletableFuture<Boolean> submit(RobotWrite write) {
            CompletableFuture<Boolean> done = write.kind() == RobotWrite.Kind.STATUS && loseNextStatus.getAndSet(false)
                    ? CompletableFuture.failedFuture(new IllegalStateException("lost on the way"))
                    : batcher.submit(write);
            if (write.kind() == RobotWrite.Kind.STATUS) {
                statuses.add(done);
            }
            return done;
        }
    }

    @AfterEach
    void tearDown() {
        writes.batcher.close();
        robots.close();
    }

    private static RobotFactory factory(String type, Function<Document, Robot> create) {
        return new RobotFactory() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public Robot create(Document config) {
                return create.apply(config);
            }
        };
    }

    private RobotRuns runs(RunThreads threads, RuntimeConfig config, RobotFactory... types) {
        return new RobotRuns(
                new RobotRuns.Storage(robots.store, writes, new WriteSequence()),
                config,
                RobotTypes.of(types),
                StoredRobots.NODE,
                () -> 0L,
                threads,
                new RobotRuns.Hooks(ended::incrementAndGet, events::add, listener));
    }

    private RobotRuns runs(RobotFactory... types) {
        return runs(RunThreads.VIRTUAL, RuntimeConfig.defaults(Duration.ofSeconds(1)), types);
    }

    /** A robot that counts its starts and waits until it is asked to stop, then returns. */
    private Robot waiting() {
        return context -> {
            ran.incrementAndGet();
            while (!context.stopRequested()) {
                context.sleep(Duration.ofMinutes(10));
            }
        };
    }

    private Document doc() {
        return robots.doc("r1");
    }

    private List<String> eventTypes() {
        return events.stream().map(e -> e.getString("type")).toList();
    }

    private static void awaitCondition(String what, BooleanSupplier done) {
        await(what).atMost(BOUND).pollInterval(Duration.ofMillis(5)).until(done::getAsBoolean);
    }

    private Run launchAndAwaitRunning(RobotRuns runs, RobotView robot) throws InterruptedException {
        Run run = runs.launch(robot, lease);
        awaitCondition("the robot reports RUNNING", () -> "RUNNING".equals(doc().getString(RobotFields.STATE)));
        return run;
    }

    private void assertEnds(Run run) throws InterruptedException {
        assertTrue(run.await(BOUND), "the run ends");
        assertFalse(run.isAlive());
        assertTrue(run.finishing(), "its last words began");
    }

    @Test
    void aRunningRobotIsRunningOnThisNodeInItsDocumentAndItsCheckpointsLandThere() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> context -> {
            context.checkpoint(new Document("count", config.getInteger("from") + 1));
            while (!context.stopRequested()) {
                context.sleep(Duration.ofMinutes(10));
            }
        }));
        RobotView robot = robots.add("r1", "counter", new Document("from", 41));

        Run run = launchAndAwaitRunning(runs, robot);

        assertEquals(StoredRobots.NODE, doc().getString(RobotFields.NODE));
        assertEquals(0, doc().getInteger(RobotFields.RESTARTS));
        awaitCondition("the checkpoint lands", () -> new Document("count", 42).equals(doc().get(RobotFields.CONTEXT)));
        assertTrue(runs.aliveOnNode("r1"));
        assertFalse(run.finishing());
        assertFalse(run.await(Duration.ofMillis(20)), "still running");
        assertEquals(RobotToken.of(robot), run.token());
        awaitCondition("the listener is told", () -> told.contains("checkpointed r1"));
        assertEquals(0, ended.get());
        run.requestStop(Run.Stop.OPERATOR, null);
        assertEnds(run);
        assertFalse(runs.aliveOnNode("r1"));
        awaitCondition("the slot's owner is told the run ended", () -> ended.get() == 1);
    }

    @Test
    void aRobotStoppedByTheOperatorEndsStoppedAndNoLongerOnThisNode() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> waiting()));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "counter", new Document()));

        run.requestStop(Run.Stop.OPERATOR, null);

        assertEnds(run);
        assertEquals("STOPPED", doc().getString(RobotFields.STATE));
        assertNull(doc().getString(RobotFields.NODE));
        assertEquals(
                "running", doc().getString(RobotFields.DESIRED), "the operator's own wish is the operator's to write");
        assertEquals(List.of("robot-started", "robot-stopped"), eventTypes());
        assertEquals(1, ran.get());
    }

    @Test
    void aRobotReleasedByAStoppingNodeIsLeftPendingForTheNextOwner() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> waiting()));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "counter", new Document()));

        run.requestStop(Run.Stop.RELEASE, null);

        assertEnds(run);
        assertEquals("PENDING", doc().getString(RobotFields.STATE));
        assertNull(doc().getString(RobotFields.NODE));
        assertEquals(List.of("robot-started", "robot-released"), eventTypes());
    }

    @Test
    void aRobotThatReturnsByItselfIsStoppedForGood() throws Exception {
        RobotRuns runs = runs(factory("once", config -> context -> {
            ran.incrementAndGet();
            context.checkpoint(new Document("done", true));
        }));
        Run run = runs.launch(robots.add("r1", "once", new Document()), lease);

        assertEnds(run);
        assertEquals("STOPPED", doc().getString(RobotFields.STATE));
        assertNull(doc().getString(RobotFields.NODE));
        assertEquals("stopped", doc().getString(RobotFields.DESIRED), "it is not started again");
        assertEquals(new Document("done", true), doc().get(RobotFields.CONTEXT));
        assertEquals(List.of("robot-started", "robot-finished"), eventTypes());
        assertEquals(1, ran.get());
    }

    @Test
    void aMovedRobotIsHandedOverToItsTargetSlotWithItsContext() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> context -> {
            while (!context.stopRequested()) {
                context.sleep(Duration.ofMinutes(10));
            }
            context.checkpoint(new Document("count", 3));
        }));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "counter", new Document()));
        robots.db
                .database()
                .getCollection(SlotTable.COLLECTION)
                .insertOne(new Document("_id", "slot-1").append(SlotTable.CHANGES, 0L));

        run.requestStop(Run.Stop.MOVE, "slot-1");
        run.requestStop(Run.Stop.RELEASE, null);

        assertEnds(run);
        assertEquals("slot-1", doc().getString(RobotFields.SLOT));
        assertEquals(
                new Document("count", 3),
                doc().get(RobotFields.CONTEXT),
                "the final checkpoint of a graceful stop travels along");
        assertEquals(
                1L,
                robots.db
                        .database()
                        .getCollection(SlotTable.COLLECTION)
                        .find()
                        .first()
                        .getLong(SlotTable.CHANGES),
                "the target slot's owner is told to read its robots again");
        assertEquals("robot-moved", eventTypes().getLast());
        assertEquals(new Document("to", "slot-1"), events.getLast().get("detail"));
    }

    @Test
    void aRemovedRobotsDocumentIsDeletedEvenIfItsCodeKeepsItsInterruptFlag() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        // As well-behaved code does: it restores the flag and returns. The run's last words must still go out.
        RobotRuns runs = runs(factory("stubborn", config -> context -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "stubborn", new Document()));
        // The operator's removal, which the slot's owner answers with the interrupt.
        robots.db
                .database()
                .getCollection(RobotFields.COLLECTION)
                .updateOne(
                        new Document(RobotFields.ID, "r1"),
                        new Document("$set", new Document(RobotFields.DESIRED, "removed")));

        run.interruptRemoved();

        assertEnds(run);
        assertNull(doc(), "deleted under the run's token");
        assertEquals(List.of("robot-started", "robot-removed"), eventTypes());
    }

    @Test
    void aRunWhoseSlotWasLostLeavesTheDocumentToTheNextOwner() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        RobotRuns runs = runs(factory("stubborn", config -> context -> never.await()));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "stubborn", new Document()));

        run.interrupt();

        assertEnds(run);
        assertEquals("RUNNING", doc().getString(RobotFields.STATE), "no last words: the slot's next owner decides");
        assertEquals(StoredRobots.NODE, doc().getString(RobotFields.NODE));
        assertEquals(List.of("robot-started", "robot-lost"), eventTypes());
    }

    @Test
    void aRobotWhoseLeaseEndedStopsWithoutLastWordsEvenIfAStopWasRequested() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> waiting()));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "counter", new Document()));

        lease.end();
        run.requestStop(Run.Stop.OPERATOR, null);

        assertEnds(run);
        assertEquals("RUNNING", doc().getString(RobotFields.STATE), "without a lease the run may not write STOPPED");
        assertEquals(List.of("robot-started", "robot-lost"), eventTypes());
    }

    @Test
    void aRunStopsAtOnceWhenACheckpointIsRejected() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch fenced = new CountDownLatch(1);
        RobotRuns runs = runs(factory("counter", config -> context -> {
            running.countDown();
            fenced.await();
            // Keeps checkpointing: only the run itself can stop it, as nobody asks it to.
            for (int i = 1; ; i++) {
                context.checkpoint(new Document("count", i));
            }
        }));
        Run run = runs.launch(robots.add("r1", "counter", new Document()), lease);
        assertTrue(running.await(BOUND.toSeconds(), TimeUnit.SECONDS));

        robots.fenceAway(StoredRobots.EPOCH + 1);
        fenced.countDown();

        assertEnds(run);
        assertTrue(told.contains("fenced r1"));
        assertEquals(new Document(), doc().get(RobotFields.CONTEXT), "nothing written under the old token");
        assertEquals("robot-lost", eventTypes().getLast());
    }

    @Test
    void aRunStopsAtOnceWhenAStatusWriteIsRejected() throws Exception {
        RobotView robot = robots.add("r1", "counter", new Document());
        robots.fenceAway(StoredRobots.EPOCH + 1);
        RobotRuns runs = runs(factory("counter", config -> waiting()));

        Run run = runs.launch(robot, lease);

        assertEnds(run);
        assertTrue(told.contains("fenced r1"));
        assertNull(doc().getString(RobotFields.NODE), "as the fence left it");
        assertEquals(List.of("robot-started", "robot-lost"), eventTypes());
    }

    @Test
    void aRobotThatKeepsThrowingIsRestartedAfterGrowingBackoffsUntilItFails() throws Exception {
        InstantWaits threads = new InstantWaits();
        RuntimeConfig config = RuntimeConfig.defaults(Duration.ofSeconds(1))
                .withRestarts(Duration.ofSeconds(1), Duration.ofSeconds(3), 4, Duration.ofMinutes(5));
        RobotRuns runs = runs(threads, config, factory("crashy", c -> context -> {
            throw new IllegalStateException("crash " + ran.incrementAndGet());
        }));

        Run run = runs.launch(robots.add("r1", "crashy", new Document()), lease);

        assertEnds(run);
        assertEquals(4, ran.get(), "the fourth failure within the window is the last");
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3)), threads.waits);
        Document doc = doc();
        assertEquals("FAILED", doc.getString(RobotFields.STATE));
        assertNull(doc.getString(RobotFields.NODE));
        assertEquals(4, doc.getInteger(RobotFields.RESTARTS));
        assertEquals("java.lang.IllegalStateException: crash 4", doc.getString(RobotFields.LAST_ERROR));
        assertEquals(List.of("restarting r1", "restarting r1", "restarting r1", "failed r1"), told);
        assertEquals(
                List.of(
                        "robot-started",
                        "robot-restarting",
                        "robot-started",
                        "robot-restarting",
                        "robot-started",
                        "robot-restarting",
                        "robot-started",
                        "robot-failed"),
                eventTypes());
        assertNull(events.get(0).get("detail"), "a first start is no restart");
        assertEquals(new Document("restarts", 3), events.get(6).get("detail"));
        assertEquals(
                new Document("error", "java.lang.IllegalStateException: crash 1").append("inMs", 1000L),
                events.get(1).get("detail"));
        assertEquals(
                new Document("error", "java.lang.IllegalStateException: crash 4"),
                events.getLast().get("detail"));
    }

    @Test
    void aRestartedRobotReportsItsRestartsAndLastErrorWhileItRuns() throws Exception {
        InstantWaits threads = new InstantWaits();
        RobotRuns runs = runs(threads, RuntimeConfig.defaults(Duration.ofSeconds(1)), factory("flaky", c -> context -> {
            if (ran.incrementAndGet() == 1) {
                throw new IllegalStateException("first try");
            }
            context.checkpoint(new Document("count", 1));
            // Waits for the test's stop without spinning on the instant waits.
            while (!context.stopRequested()) {
                Thread.onSpinWait();
            }
        }));

        Run run = runs.launch(robots.add("r1", "flaky", new Document()), lease);
        awaitCondition(
                "the restarted robot checkpoints",
                () -> new Document("count", 1).equals(doc().get(RobotFields.CONTEXT)));
        awaitCondition(
                "its status arrives",
                () -> "RUNNING".equals(doc().getString(RobotFields.STATE))
                        && doc().getInteger(RobotFields.RESTARTS) == 1);

        assertEquals("java.lang.IllegalStateException: first try", doc().getString(RobotFields.LAST_ERROR));
        run.requestStop(Run.Stop.OPERATOR, null);
        assertEnds(run);
        assertEquals("STOPPED", doc().getString(RobotFields.STATE));
    }

    @Test
    void noRestartAfterTheLeaseEndedDuringTheBackoff() throws Exception {
        InstantWaits threads = new InstantWaits();
        onRestarting = lease::end;
        RobotRuns runs =
                runs(threads, RuntimeConfig.defaults(Duration.ofSeconds(1)), factory("crashy", c -> context -> {
                    throw new IllegalStateException("crash " + ran.incrementAndGet());
                }));

        Run run = runs.launch(robots.add("r1", "crashy", new Document()), lease);

        assertEnds(run);
        assertEquals(1, ran.get(), "no robot code without a valid lease");
        assertEquals("robot-lost", eventTypes().getLast());
        assertFalse("FAILED".equals(doc().getString(RobotFields.STATE)));
    }

    @Test
    void aStopRequestedDuringTheBackoffEndsTheRunStoppedWithoutRestart() throws Exception {
        InstantWaits threads = new InstantWaits();
        CountDownLatch launched = new CountDownLatch(1);
        Run[] run = new Run[1];
        onRestarting = () -> run[0].requestStop(Run.Stop.OPERATOR, null);
        RobotRuns runs =
                runs(threads, RuntimeConfig.defaults(Duration.ofSeconds(1)), factory("crashy", c -> context -> {
                    launched.await();
                    throw new IllegalStateException("crash " + ran.incrementAndGet());
                }));

        run[0] = runs.launch(robots.add("r1", "crashy", new Document()), lease);
        launched.countDown();

        assertEnds(run[0]);
        assertEquals(1, ran.get());
        assertEquals("STOPPED", doc().getString(RobotFields.STATE));
        assertEquals(1, doc().getInteger(RobotFields.RESTARTS));
    }

    @Test
    void aRobotOfATypeThisNodeDoesNotKnowFailsNamingTheTypesItKnows() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> waiting()));

        Run run = runs.launch(robots.add("r1", "nope", new Document()), lease);

        assertEnds(run);
        assertEquals("FAILED", doc().getString(RobotFields.STATE));
        assertEquals("unknown robot type 'nope' (this node knows: counter)", doc().getString(RobotFields.LAST_ERROR));
        assertEquals(List.of("failed r1"), told);
        assertEquals(List.of("robot-failed"), eventTypes());
    }

    @Test
    void aRobotThatCannotBeCreatedFails() throws Exception {
        RobotRuns runs = runs(factory("broken", config -> {
            throw new IllegalArgumentException("bad config");
        }));

        Run run = runs.launch(robots.add("r1", "broken", new Document()), lease);

        assertEnds(run);
        assertEquals("FAILED", doc().getString(RobotFields.STATE));
        assertEquals(
                "cannot create: java.lang.IllegalArgumentException: bad config",
                doc().getString(RobotFields.LAST_ERROR));
        assertEquals(0, ran.get());
    }

    @Test
    void aFencedExceptionFromAGracefulStopEndsTheRunAsAsked() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> context -> {
            while (!context.stopRequested()) {
                context.sleep(Duration.ofMinutes(10));
            }
            // As a final checkpoint that the stop cut short throws.
            throw new FencedException("cut short by the stop");
        }));
        Run run = launchAndAwaitRunning(runs, robots.add("r1", "counter", new Document()));

        run.requestStop(Run.Stop.OPERATOR, null);

        assertEnds(run);
        assertEquals(
                "STOPPED",
                doc().getString(RobotFields.STATE),
                "the run still holds its token: its final state is written");
    }

    @Test
    void aFencedExceptionWithoutAStopEndsTheRunWithoutRestartOrLastWords() throws Exception {
        RobotRuns runs = runs(factory("counter", config -> context -> {
            ran.incrementAndGet();
            throw new FencedException("fenced");
        }));

        Run run = runs.launch(robots.add("r1", "counter", new Document()), lease);

        assertEnds(run);
        assertEquals(1, ran.get(), "a fence is no failure to restart from");
        assertEquals("robot-lost", eventTypes().getLast());
        assertFalse("STOPPED".equals(doc().getString(RobotFields.STATE))
                || "FAILED".equals(doc().getString(RobotFields.STATE)));
    }

    @Test
    void aStatusThatFailedToArriveIsSentAgainWhileTheRobotRuns() throws Exception {
        writes.loseNextStatus.set(true);
        RobotRuns runs = runs(factory("counter", config -> waiting()));
        Run run = runs.launch(robots.add("r1", "counter", new Document()), lease);
        awaitCondition(
                "the first status write fails",
                () -> writes.statuses.size() == 1 && writes.statuses.getFirst().isDone());
        assertEquals("STARTING", doc().getString(RobotFields.STATE), "lost on the way");

        run.resendStatus();

        awaitCondition("sent again", () -> "RUNNING".equals(doc().getString(RobotFields.STATE)));
        assertEquals(StoredRobots.NODE, doc().getString(RobotFields.NODE));
        run.requestStop(Run.Stop.OPERATOR, null);
        assertEnds(run);
    }

    @Test
    void noStatusIsSentAgainOnceTheRunIsStoppingAndTheFinalWriteIsTheLast() throws Exception {
        CountDownLatch unwind = new CountDownLatch(1);
        writes.loseNextStatus.set(true);
        RobotRuns runs = runs(factory("counter", config -> context -> {
            while (!context.stopRequested()) {
                context.sleep(Duration.ofMinutes(10));
            }
            unwind.await();
        }));
        Run run = runs.launch(robots.add("r1", "counter", new Document()), lease);
        awaitCondition(
                "the first status write fails",
                () -> writes.statuses.size() == 1 && writes.statuses.getFirst().isDone());

        run.requestStop(Run.Stop.RELEASE, null);
        run.resendStatus();

        assertEquals(1, writes.statuses.size(), "nothing sent again while the robot unwinds");
        unwind.countDown();
        assertEnds(run);
        run.resendStatus();
        assertEquals(2, writes.statuses.size(), "the final write, and nothing after it");
        assertEquals("PENDING", doc().getString(RobotFields.STATE));
    }

    @Test
    void aStatusResentAfterTheFinalWriteNeverOverwritesIt() throws Exception {
        writes.loseNextStatus.set(true);
        CountDownLatch statusLost = new CountDownLatch(1);
        RobotRuns runs = runs(factory("once", config -> context -> statusLost.await()));
        Run run = runs.launch(robots.add("r1", "once", new Document()), lease);
        awaitCondition(
                "the first status write fails",
                () -> writes.statuses.size() == 1 && writes.statuses.getFirst().isDone());

        // The robot returns by itself: nobody asked it to stop, so only the run's own end guards its status.
        statusLost.countDown();
        assertEnds(run);
        run.resendStatus();

        assertEquals(2, writes.statuses.size(), "the final write, and nothing after it");
        assertEquals("STOPPED", doc().getString(RobotFields.STATE));
    }
}
