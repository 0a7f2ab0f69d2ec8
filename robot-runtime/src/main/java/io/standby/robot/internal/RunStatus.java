package io.standby.robot.internal;

import io.standby.robot.model.RobotToken;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status a run reports in its robot's document ({@code state}, {@code node}, {@code restarts}, {@code lastError}):
 * sent without waiting, sent again whole when a write failed to arrive, and ended by one final write that nothing may
 * follow or overtake.
 */
final class RunStatus {

    private static final Logger log = LoggerFactory.getLogger(RunStatus.class);

    private final RobotToken token;
    private final RobotWrites writes;
    private final RunThreads threads;
    private final WriteSequence sequence;
    private final Runnable onRejected;
    private final Object lock = new Object();
    /** Every status field this run has set, latest values. */
    private final Document intended = new Document();
    /** A status write failed to arrive since the last resend. */
    private boolean undelivered;

    private boolean finishing;

    /** @param onRejected called when a status write is rejected: the run's token is gone */
    RunStatus(RobotToken token, RobotWrites writes, RunThreads threads, WriteSequence sequence, Runnable onRejected) {
        this.token = token;
        this.writes = writes;
        this.threads = threads;
        this.sequence = sequence;
        this.onRejected = onRejected;
    }

    /** Sends a change without waiting; nothing once the final write began. */
    void send(Document fields) {
        synchronized (lock) {
            if (finishing) {
                return;
            }
            intended.putAll(fields);
            writes.submit(RobotWrite.status(token, sequence.next(), fields)).whenComplete((written, error) -> {
                if (Boolean.FALSE.equals(written)) {
                    onRejected.run();
                } else if (error != null && !(error instanceof IllegalArgumentException)) {
                    synchronized (lock) {
                        undelivered = true;
                    }
                }
            });
        }
    }

    /** If a write failed to arrive, sends the whole current status again. */
    void resend() {
        Document fields;
        synchronized (lock) {
            if (!undelivered || finishing) {
                return;
            }
            undelivered = false;
            fields = new Document(intended);
        }
        send(fields);
    }

    /** From now on nothing is sent: the run's last words follow. */
    void finishing() {
        synchronized (lock) {
            finishing = true;
        }
    }

    /** The final write, waited for up to {@code atMost}; the caller called {@link #finishing()} first. */
    void finalWrite(Document fields, Duration atMost) {
        try {
            Boolean written = threads.get(writes.submit(RobotWrite.status(token, sequence.next(), fields)), atMost);
            if (!written) {
                log.debug("Final state of {} not written: fenced", token.robotId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Final state of robot {} not written: {}", token.robotId(), e.toString());
        }
    }
}
