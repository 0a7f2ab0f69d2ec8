package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The status a run reports: sent without waiting under the run's token, sent again whole after a write that failed to
 * arrive, a rejection stops the run, and the final write is the last one.
 */
class RunStatusTest {

    private static final RobotToken TOKEN = new RobotToken("r1", "i1", "slot-0", 4, 2);

    private final ScriptedWrites writes = new ScriptedWrites();
    private final AtomicInteger rejected = new AtomicInteger();
    private final RunStatus status =
            new RunStatus(TOKEN, writes, RunThreads.VIRTUAL, new WriteSequence(), rejected::incrementAndGet);

    @Test
    void aStatusChangeLandsInTheRobotsDocumentUnderTheRunsToken() throws Exception {
        try (StoredRobots robots = new StoredRobots()) {
            robots.add("r1", "counter", new Document());
            try (WriteBatcher batcher = new WriteBatcher(robots.store)) {
                RunStatus real = new RunStatus(
                        robots.token("r1"),
                        batcher,
                        RunThreads.VIRTUAL,
                        new WriteSequence(),
                        rejected::incrementAndGet);
                real.send(new Document(RobotFields.STATE, RobotState.RUNNING.name())
                        .append(RobotFields.NODE, StoredRobots.NODE));
                real.finishing();
                real.finalWrite(
                        new Document(RobotFields.STATE, RobotState.STOPPED.name()).append(RobotFields.NODE, null),
                        Duration.ofSeconds(10));

                Document doc = robots.doc("r1");
                assertEquals(
                        "STOPPED", doc.getString(RobotFields.STATE), "the final write was waited for, and came last");
                assertEquals(2L, doc.getLong(RobotFields.STATUS_SEQ), "both writes landed, in order");
                assertEquals(0, rejected.get());
            }
        }
    }

    @Test
    void eachChangeIsOneStatusWriteWithTheNextSequenceNumber() throws Exception {
        status.send(new Document("state", "RUNNING"));
        status.send(new Document("restarts", 1));

        List<RobotWrite> sent = writes.submitted;
        assertEquals(2, sent.size());
        assertEquals(RobotWrite.status(TOKEN, 1, new Document("state", "RUNNING")), sent.get(0));
        assertEquals(RobotWrite.status(TOKEN, 2, new Document("restarts", 1)), sent.get(1));
    }

    @Test
    void aRejectedStatusWriteStopsTheRun() throws Exception {
        status.send(new Document("state", "RUNNING"));
        writes.next().done().complete(false);

        assertEquals(1, rejected.get(), "the token is gone: another runner has the robot");
    }

    @Test
    void anAcknowledgedOrUndeliveredStatusWriteIsNoRejection() throws Exception {
        status.send(new Document("state", "RUNNING"));
        writes.next().done().complete(true);
        status.send(new Document("restarts", 1));
        writes.next().done().completeExceptionally(new WriteBatch.Unconfirmed("not confirmed"));

        assertEquals(0, rejected.get());
    }

    @Test
    void aStatusWriteThatFailedToArriveIsSentAgainWholeWithItsLatestValues() throws Exception {
        status.send(new Document("state", "RUNNING").append("node", "n1").append("restarts", 0));
        writes.next().done().complete(true);
        status.send(new Document("restarts", 1).append("lastError", "boom"));
        writes.next().done().completeExceptionally(new IllegalStateException("unreachable"));

        status.resend();

        assertEquals(3, writes.submitted.size());
        assertEquals(
                RobotWrite.status(
                        TOKEN,
                        3,
                        new Document("state", "RUNNING")
                                .append("node", "n1")
                                .append("restarts", 1)
                                .append("lastError", "boom")),
                writes.submitted.get(2),
                "every field this run set, latest values");
        writes.next().done().complete(true);

        status.resend();
        assertEquals(3, writes.submitted.size(), "delivered since: nothing to send again");
    }

    @Test
    void nothingIsSentAgainWhenEveryWriteArrived() throws Exception {
        status.send(new Document("state", "RUNNING"));
        writes.next().done().complete(true);

        status.resend();

        assertEquals(1, writes.submitted.size());
    }

    @Test
    void aWriteRefusedForGoodIsNotSentAgain() throws Exception {
        status.send(new Document("lastError", "x".repeat(100)));
        writes.next().done().completeExceptionally(new IllegalArgumentException("too large"));

        status.resend();

        assertEquals(1, writes.submitted.size(), "the same refused write would be refused again");
        assertEquals(0, rejected.get());
    }

    @Test
    void nothingIsSentOnceTheFinalWriteBegan() throws Exception {
        status.send(new Document("state", "RUNNING"));
        writes.next().done().completeExceptionally(new IllegalStateException("unreachable"));
        status.finishing();

        status.send(new Document("restarts", 1));
        status.resend();

        assertEquals(1, writes.submitted.size(), "no status write may follow, or overtake, the final one");
    }

    @Test
    void theFinalWriteWaitsForItsOutcome() throws Exception {
        status.finishing();
        CompletableFuture<Void> written = CompletableFuture.runAsync(
                () -> status.finalWrite(new Document("state", "STOPPED"), Duration.ofMinutes(10)));
        ScriptedWrites.Submitted last = writes.next();
        assertEquals(RobotWrite.status(TOKEN, 1, new Document("state", "STOPPED")), last.write());
        assertFalse(written.isDone(), "the final write is waited for");

        last.done().complete(false);

        written.get(10, TimeUnit.SECONDS);
        assertEquals(0, rejected.get(), "a fenced final write only means someone else has the robot now");
    }

    @Test
    void theFinalWriteGivesUpAfterItsTime() {
        status.finishing();

        // Never answered: it must return, not hang the run's end.
        status.finalWrite(new Document("state", "STOPPED"), Duration.ofMillis(50));

        assertEquals(1, writes.submitted.size());
    }

    @Test
    void theFinalWriteOfAnInterruptedThreadKeepsItsInterruptFlag() {
        status.finishing();
        Thread.currentThread().interrupt();

        status.finalWrite(new Document("state", "STOPPED"), Duration.ofMinutes(10));

        assertTrue(Thread.interrupted(), "the interrupt is the caller's to see");
    }

    @Test
    void aFinalWriteThatFailedIsNoErrorOfTheRun() throws Exception {
        status.finishing();
        CompletableFuture<Void> written = CompletableFuture.runAsync(
                () -> status.finalWrite(new Document("state", "STOPPED"), Duration.ofMinutes(10)));
        writes.next().done().completeExceptionally(new IllegalStateException("unreachable"));

        written.get(10, TimeUnit.SECONDS);
        assertEquals(0, rejected.get());
    }
}
