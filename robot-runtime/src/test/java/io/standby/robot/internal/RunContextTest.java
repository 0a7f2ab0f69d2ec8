package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.FencedException;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.testing.FaultyBackend;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodec;
import org.junit.jupiter.api.Test;

/**
 * What a running robot sees: its identity, configuration and last state, and the checkpoint, which is acknowledged only
 * once the store accepted it under the run's token, never while its outcome is unknown.
 */
class RunContextTest {

    private static final RobotToken TOKEN = new RobotToken("r1", "i1", "slot-0", 4, 2);

    private final ScriptedWrites writes = new ScriptedWrites();
    private final InstantWaits threads = new InstantWaits();
    private final RunControl control = new RunControl(threads);
    private final HandLease lease = new HandLease();
    /** The node's monotonic clock, by hand; not at zero, as a real one never is. */
    private final AtomicLong now = new AtomicLong(Duration.ofHours(3).toNanos());

    private final AtomicInteger rejected = new AtomicInteger();
    private final List<Duration> acknowledged = new CopyOnWriteArrayList<>();

    private RunContext context(RobotWrites through, Document config, Document state) {
        return new RunContext(
                new RunContext.Launch(TOKEN, lease, "counter", config, state),
                control,
                new RunContext.Checkpoints(through, threads, new WriteSequence(), now::get),
                () -> {
                    rejected.incrementAndGet();
                    control.interrupt();
                },
                acknowledged::add);
    }

    /** A robot of type counter without configuration, under the test's lease. */
    private RunContext.Launch launch(RobotToken token, Document state) {
        return new RunContext.Launch(token, lease, "counter", null, state);
    }

    private final RunContext context = context(writes, new Document("step", 2), new Document("count", 5));

    /** The robot's checkpoint, on a thread of its own, as a robot calls it. */
    private CompletableFuture<Void> checkpointing(Document state) {
        return CompletableFuture.runAsync(() -> context.checkpoint(state));
    }

    private static Throwable failureOf(CompletableFuture<Void> call) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void theRobotSeesItsIdentityConfigurationAndLastState() {
        assertEquals("r1", context.robotId());
        assertEquals("slot-0", context.slotId());
        assertEquals(4, context.epoch());
        assertEquals(new Document("step", 2), context.config());
        assertEquals(new Document("count", 5), context.state());
        assertEquals("robot.counter", context.log().getName(), "robots' logs are configured by type");
    }

    @Test
    void aRobotWithoutConfigurationOrStateSeesEmptyDocuments() {
        RunContext bare = context(writes, null, null);

        assertEquals(new Document(), bare.config());
        assertEquals(new Document(), bare.state());
    }

    @Test
    void whatTheRobotDoesToADocumentItWasGivenChangesNothingItSeesLater() {
        context.config().put("step", 3);
        context.state().put("count", 6);

        assertEquals(new Document("step", 2), context.config());
        assertEquals(new Document("count", 5), context.state());
    }

    @Test
    void anAcknowledgedCheckpointLandsInTheDocumentAndIsTheStateFromThenOn() throws Exception {
        try (StoredRobots robots = new StoredRobots()) {
            robots.add("r1", "counter", new Document());
            try (WriteBatcher batcher = new WriteBatcher(robots.store)) {
                RunContext real = new RunContext(
                        launch(robots.token("r1"), null),
                        control,
                        new RunContext.Checkpoints(batcher, RunThreads.VIRTUAL, new WriteSequence(), now::get),
                        rejected::incrementAndGet,
                        acknowledged::add);
                Document state = new Document("count", 1);

                real.checkpoint(state);
                state.put("count", 99);

                assertEquals(new Document("count", 1), robots.doc("r1").get(RobotFields.CONTEXT, Document.class));
                assertEquals(
                        new Document("count", 1),
                        real.state(),
                        "the state as acknowledged, not as the robot changed it since");
                assertEquals(1, acknowledged.size());
                assertEquals(0, rejected.get());
            }
        }
    }

    @Test
    void aCheckpointRejectedUnderAnotherTokenIsNeverAcknowledgedAndStopsTheRun() throws Exception {
        try (StoredRobots robots = new StoredRobots()) {
            robots.add("r1", "counter", new Document());
            RobotToken token = robots.token("r1");
            robots.fenceAway(5);
            try (WriteBatcher batcher = new WriteBatcher(robots.store)) {
                RunContext.Checkpoints through =
                        new RunContext.Checkpoints(batcher, RunThreads.VIRTUAL, new WriteSequence(), now::get);
                RunContext real = new RunContext(
                        launch(token, new Document("count", 0)),
                        control,
                        through,
                        () -> {
                            rejected.incrementAndGet();
                            control.interrupt();
                        },
                        acknowledged::add);

                assertThrows(FencedException.class, () -> real.checkpoint(new Document("count", 1)));

                assertEquals(1, rejected.get());
                assertEquals(List.of(), acknowledged);
                assertEquals(new Document("count", 0), real.state());
                assertEquals(new Document(), robots.doc("r1").get(RobotFields.CONTEXT, Document.class));
            }
        }
    }

    @Test
    void aCheckpointNotConfirmedByAMajorityIsRetriedAndAcknowledgedOnlyOnceConfirmed() throws Exception {
        FaultyBackend backend = new FaultyBackend();
        try (StoredRobots robots = new StoredRobots(backend)) {
            robots.add("r1", "counter", new Document());
            try (WriteBatcher batcher = new WriteBatcher(robots.store)) {
                RunContext real = new RunContext(
                        launch(robots.token("r1"), null),
                        control,
                        new RunContext.Checkpoints(batcher, threads, new WriteSequence(), now::get),
                        rejected::incrementAndGet,
                        acknowledged::add);
                backend.failWriteConcern(RobotFields.COLLECTION, 2);

                real.checkpoint(new Document("count", 1));

                assertEquals(
                        List.of(Duration.ofMillis(50), Duration.ofMillis(100)),
                        threads.waits,
                        "two retries, after backoffs");
                assertEquals(1, acknowledged.size(), "acknowledged once, when confirmed");
                assertEquals(new Document("count", 1), real.state());
            }
        }
    }

    @Test
    void aCheckpointWhoseOutcomeIsUnknownIsNotTheStateAndItsRetryIsTheSameWrite() throws Exception {
        CompletableFuture<Void> call = checkpointing(new Document("count", 6));
        ScriptedWrites.Submitted first = writes.next();
        first.done().completeExceptionally(new WriteBatch.Unconfirmed("not confirmed by a majority"));
        ScriptedWrites.Submitted retry = writes.next();

        assertEquals(first.write(), retry.write(), "the same sequence number: whichever copy lands first wins");
        assertEquals(new Document("count", 5), context.state(), "not acknowledged while its outcome is unknown");
        assertEquals(List.of(), acknowledged);
        assertFalse(call.isDone());

        now.addAndGet(Duration.ofMillis(70).toNanos());
        retry.done().complete(true);

        call.get(10, TimeUnit.SECONDS);
        assertEquals(new Document("count", 6), context.state());
        assertEquals(
                List.of(Duration.ofMillis(70)),
                acknowledged,
                "from the robot's call to the acknowledgement, retries included");
    }

    @Test
    void retriesBackOffDoublingFrom50MsUpTo1s() throws Exception {
        CompletableFuture<Void> call = checkpointing(new Document("count", 6));
        for (int i = 0; i < 7; i++) {
            writes.next().done().completeExceptionally(new IllegalStateException("unreachable"));
        }
        writes.next().done().complete(true);

        call.get(10, TimeUnit.SECONDS);
        assertEquals(
                List.of(50L, 100L, 200L, 400L, 800L, 1000L, 1000L),
                threads.waits.stream().map(Duration::toMillis).toList());
    }

    @Test
    void aCheckpointRefusedForGoodFailsWithoutRetryAndIsNotTheState() throws Exception {
        CompletableFuture<Void> call = checkpointing(new Document("blob", "x"));
        writes.next().done().completeExceptionally(new IllegalArgumentException("document too large"));

        Throwable failure = failureOf(call);
        assertInstanceOf(IllegalArgumentException.class, failure);
        assertTrue(
                failure.getMessage().contains("r1") && failure.getMessage().contains("document too large"),
                failure.getMessage());
        assertEquals(1, writes.submitted.size());
        assertEquals(new Document("count", 5), context.state());
        assertFalse(control.interrupted(), "the robot may go on and write a smaller state");
    }

    @Test
    void aCheckpointAfterTheLeaseEndedIsNotSent() {
        lease.end();

        assertThrows(FencedException.class, () -> context.checkpoint(new Document("count", 6)));
        assertEquals(List.of(), writes.submitted);
    }

    @Test
    void aCheckpointOfAnInterruptedRunIsNotSent() {
        control.interrupt();

        assertThrows(FencedException.class, () -> context.checkpoint(new Document("count", 6)));
        assertEquals(List.of(), writes.submitted);
    }

    @Test
    void aRetryAfterTheLeaseEndedIsNotSent() throws Exception {
        CompletableFuture<Void> call = checkpointing(new Document("count", 6));
        ScriptedWrites.Submitted first = writes.next();
        lease.end();
        first.done().completeExceptionally(new IllegalStateException("unreachable"));

        assertInstanceOf(FencedException.class, failureOf(call));
        assertEquals(1, writes.submitted.size());
        assertEquals(new Document("count", 5), context.state());
    }

    @Test
    void aStopRequestedWhileACheckpointIsUnconfirmedEndsItUnacknowledged() throws Exception {
        CompletableFuture<Void> call = checkpointing(new Document("count", 6));
        ScriptedWrites.Submitted first = writes.next();
        control.requestStop(Run.Stop.OPERATOR, null);
        first.done().completeExceptionally(new IllegalStateException("unreachable"));

        assertInstanceOf(FencedException.class, failureOf(call));
        assertEquals(1, writes.submitted.size());
        assertEquals(List.of(), acknowledged);
    }

    @Test
    void anInterruptDuringACheckpointEndsItUnacknowledgedAndMarksTheRun() throws Exception {
        CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread robot = Thread.ofVirtual().start(() -> {
            try {
                context.checkpoint(new Document("count", 6));
                thrown.complete(null);
            } catch (RuntimeException e) {
                thrown.complete(e);
            }
            flagKept.complete(Thread.currentThread().isInterrupted());
        });
        writes.next();

        robot.interrupt();

        assertInstanceOf(FencedException.class, thrown.get(10, TimeUnit.SECONDS));
        assertTrue(flagKept.get(10, TimeUnit.SECONDS), "the robot's code still sees the interrupt");
        assertTrue(control.interrupted(), "the run may write nothing more");
        assertEquals(new Document("count", 5), context.state());
    }

    @Test
    void aStopIsRequestedWhenTheOperatorAsksOrTheLeaseEnds() {
        assertFalse(context.stopRequested());
        assertTrue(context.sleep(Duration.ofMillis(10)), "nothing asked: go on");

        lease.end();

        assertTrue(context.stopRequested());
        assertFalse(context.sleep(Duration.ofMillis(10)), "the lease ended: return");
    }

    @Test
    void aGracefulStopEndsTheRobotsSleep() {
        control.requestStop(Run.Stop.RELEASE, null);

        assertTrue(context.stopRequested());
        assertFalse(context.sleep(Duration.ofMinutes(10)));
    }

    /**
     * A robot's configuration and state, and every checkpoint, stay in memory as long as its run: each copy holds its
     * own bytes and no more (the driver's own copy keeps a 1 KB buffer for a 20-byte document).
     */
    @Test
    void aCopyOfADocumentHoldsItsBytesAndNoMore() {
        Document small = new Document("count", 41L);
        Document large = new Document("name", "x".repeat(300)).append("nested", new Document("list", List.of(1, 2, 3)));
        for (Document document : List.of(small, large, new Document())) {
            RawBsonDocument raw = RunContext.raw(document);
            assertEquals(document, raw.decode(new DocumentCodec()), "the same document");
            ByteBuffer bytes = raw.getByteBuffer().asNIO();
            assertEquals(bytes.remaining(), bytes.array().length, "no spare bytes held for " + document.toJson());
        }
    }
}
