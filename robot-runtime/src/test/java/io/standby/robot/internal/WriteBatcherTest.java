package io.standby.robot.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write batcher on the embedded server: what is queued while a batch is in flight goes out as the next bulk, merged
 * per robot (latest values win); each write is acknowledged only after its bulk was written, and a failure reaches
 * every write of the bulk.
 */
class WriteBatcherTest {

    /**
     * The real store, with each bulk recorded, and the next bulk held until the test lets it go, so the test decides
     * what is queued while a batch is in flight.
     */
    private static final class HeldStore extends ForwardingRobotStore {
        final List<List<RobotWrite>> bulks = new CopyOnWriteArrayList<>();
        volatile CountDownLatch entered = new CountDownLatch(0);
        volatile CountDownLatch release = new CountDownLatch(0);
        final AtomicReference<RuntimeException> failNext = new AtomicReference<>();

        HeldStore(RobotStore store) {
            super(store);
        }

        /** Holds the next bulk; {@link #entered} counts down when it arrives. */
        void holdNext() {
            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
        }

        @Override
        public int write(List<RobotWrite> writes) {
            bulks.add(List.copyOf(writes));
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException("interrupted while held", e);
            }
            RuntimeException failure = failNext.getAndSet(null);
            if (failure != null) {
                throw failure;
            }
            return super.write(writes);
        }
    }

    private final StoredRobots robots = new StoredRobots();
    private final HeldStore store = new HeldStore(robots.store);
    private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    private final WriteBatcher batcher = new WriteBatcher(store, batchSizes::add);

    @AfterEach
    void tearDown() {
        store.release.countDown();
        batcher.close();
        robots.close();
    }

    private static boolean outcome(CompletableFuture<Boolean> write) throws Exception {
        return write.get(10, TimeUnit.SECONDS);
    }

    private static Throwable failureOf(CompletableFuture<Boolean> write) {
        return assertThrows(ExecutionException.class, () -> write.get(10, TimeUnit.SECONDS))
                .getCause();
    }

    /** Polls until {@code done}, up to 10 s: the batcher tells its metric after it settled the writes. */
    private static void awaitCondition(java.util.function.BooleanSupplier done) {
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(done::getAsBoolean);
    }

    /** Sends a first write and holds it in flight: what is submitted next queues behind it. */
    private CompletableFuture<Boolean> inFlight(RobotToken token) throws InterruptedException {
        store.holdNext();
        CompletableFuture<Boolean> first =
                batcher.submit(RobotWrite.status(token, 1, new Document("state", "RUNNING")));
        assertTrue(store.entered.await(10, TimeUnit.SECONDS), "the first bulk was sent");
        return first;
    }

    @Test
    void writesQueuedWhileABatchIsInFlightGoOutAsTheNextBulkMergedPerRobotLatestValueLast() throws Exception {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        RobotToken r2 = robots.token("r2");
        CompletableFuture<Boolean> first = inFlight(r1);

        CompletableFuture<Boolean> c1 = batcher.submit(RobotWrite.checkpoint(r1, 2, new Document("count", 1)));
        CompletableFuture<Boolean> c2 = batcher.submit(RobotWrite.checkpoint(r1, 3, new Document("count", 2)));
        CompletableFuture<Boolean> other = batcher.submit(RobotWrite.checkpoint(r2, 4, new Document("count", 7)));
        assertFalse(
                c1.isDone() || c2.isDone() || other.isDone() || first.isDone(),
                "nothing is acknowledged before its bulk was written");
        store.release.countDown();

        assertTrue(outcome(first) && outcome(c1) && outcome(c2) && outcome(other));
        assertEquals(2, store.bulks.size(), "one bulk in flight at a time; the queue went out as the next");
        assertEquals(
                List.of(
                        RobotWrite.checkpoint(r1, 3, new Document("count", 2)),
                        RobotWrite.checkpoint(r2, 4, new Document("count", 7))),
                store.bulks.get(1),
                "one write per robot and kind: the latest value and sequence number, in queue order");
        awaitCondition(() -> batchSizes.size() == 2);
        assertEquals(List.of(1, 3), batchSizes, "each write counted once, in the bulk that carried it");
        assertEquals(new Document("count", 2), robots.doc("r1").get(RobotFields.CONTEXT, Document.class));
        assertEquals(new Document("count", 7), robots.doc("r2").get(RobotFields.CONTEXT, Document.class));
    }

    @Test
    void aWriteUnderAStaleTokenIsReportedRejectedToEachOfItsWaiters() throws Exception {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        RobotToken r2 = robots.token("r2");
        robots.store.fence(StoredRobots.SLOT, StoredRobots.EPOCH + 1, List.of("r1"));
        CompletableFuture<Boolean> first = inFlight(r2);

        CompletableFuture<Boolean> a = batcher.submit(RobotWrite.checkpoint(r1, 2, new Document("count", 1)));
        CompletableFuture<Boolean> b = batcher.submit(RobotWrite.checkpoint(r1, 3, new Document("count", 2)));
        CompletableFuture<Boolean> fine = batcher.submit(RobotWrite.checkpoint(r2, 4, new Document("count", 7)));
        store.release.countDown();

        assertTrue(outcome(first));
        assertFalse(outcome(a), "fenced");
        assertFalse(outcome(b), "fenced");
        assertTrue(outcome(fine), "the other robot's write in the same bulk is not held back");
        assertEquals(new Document(), robots.doc("r1").get(RobotFields.CONTEXT, Document.class));
    }

    @Test
    void aBulkThatCouldNotBeSentFailsEachOfItsWritesAndTheNextBulkIsSent() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        store.failNext.set(new IllegalStateException("database unreachable"));
        CompletableFuture<Boolean> first = inFlight(r1);
        CompletableFuture<Boolean> queued = batcher.submit(RobotWrite.checkpoint(r1, 2, new Document("count", 1)));
        store.release.countDown();

        Throwable failure = failureOf(first);
        assertEquals("database unreachable", failure.getMessage());
        assertTrue(outcome(queued), "the batcher goes on after a failed bulk");
    }

    @Test
    void closeSendsWhatIsQueuedThenRefusesNewWrites() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        CompletableFuture<Boolean> first = inFlight(r1);
        CompletableFuture<Boolean> queued = batcher.submit(RobotWrite.checkpoint(r1, 2, new Document("count", 1)));
        CompletableFuture<Void> closed = CompletableFuture.runAsync(batcher::close);
        store.release.countDown();

        closed.get(10, TimeUnit.SECONDS);
        assertTrue(outcome(first));
        assertTrue(outcome(queued), "queued before close: sent");
        assertEquals(new Document("count", 1), robots.doc("r1").get(RobotFields.CONTEXT, Document.class));
        Throwable after = failureOf(batcher.submit(RobotWrite.checkpoint(r1, 3, new Document("count", 2))));
        assertInstanceOf(IllegalStateException.class, after);
    }

    @Test
    void closeGivesUpOnADatabaseThatDoesNotAnswerAndFailsWhatIsLeft() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        CompletableFuture<Boolean> stuck = inFlight(r1);
        CompletableFuture<Boolean> queued = batcher.submit(RobotWrite.checkpoint(r1, 2, new Document("count", 1)));

        batcher.close();

        assertInstanceOf(IllegalStateException.class, failureOf(queued), "not sent: the runtime is closed");
        assertTrue(stuck.isCompletedExceptionally(), "the held bulk failed when its sender was interrupted");
        assertEquals(1, store.bulks.size(), "nothing was sent after close gave up");
    }

    @Test
    void closingFromAnInterruptedThreadReturnsAndKeepsTheInterrupt() throws Exception {
        robots.add("r1", "counter", new Document());
        inFlight(robots.token("r1"));

        Thread.currentThread().interrupt();
        batcher.close();

        assertTrue(Thread.interrupted(), "the closer's interrupt is its caller's to see");
    }
}
