package io.standby.robot.internal;

import io.standby.robot.FencedException;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import io.standby.robot.RobotState;
import io.standby.robot.RobotView;
import io.standby.slot.Lease;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.standby.robot.internal.RobotFields.DESIRED;
import static io.standby.robot.internal.RobotFields.LAST_ERROR;
import static io.standby.robot.internal.RobotFields.NODE;
import static io.standby.robot.internal.RobotFields.RESTARTS;
import static io.standby.robot.internal.RobotFields.STATE;

/**
 * One robot on this node, from its start until its thread ends: a virtual thread that creates the robot,
 * runs it, restarts it with exponential backoff when it throws, and writes its final state. It is also
 * the {@link RobotContext} the robot sees. Every write carries the run's {@link RobotToken} and a
 * sequence number.
 */
final class RobotRun implements Run, RobotContext {

    private static final Logger log = LoggerFactory.getLogger(RobotRun.class);
    private static final DocumentCodec CODEC = new DocumentCodec();
    /** How long a final status write may take before the run gives up on it. */
    private static final Duration FINAL_WRITE = Duration.ofSeconds(10);

    /** How a run ended, which decides its last write. */
    private enum Outcome { STOPPED, RELEASED, MOVED, REMOVED, LOST, FINISHED, FAILED }

    private final RobotView robot;
    private final Lease lease;
    private final RobotToken token;
    private final RobotRuns runs;
    private final Logger robotLog;
    private final Object monitor = new Object();
    /** The graceful stop asked for, if any; the first request sticks. Guarded by monitor for writes. */
    private volatile Stop stop;
    private volatile String moveTarget;
    /** Stopped at once (slot lost, fenced, or removed): the run may write nothing more. */
    private volatile boolean interrupted;
    private volatile boolean removed;
    /** The robot's configuration, immutable; decoded afresh for every {@link #config()} call. */
    private final RawBsonDocument config;
    /** The last accepted state, immutable; decoded afresh for every {@link #state()} call. */
    private volatile RawBsonDocument state;
    private volatile Thread thread;
    private int restarts;
    private String lastError;
    private final Object statusLock = new Object();
    /** Every status field this run has set, latest values; guarded by statusLock. */
    private final Document intended = new Document();
    /** A status write failed to arrive since the last resend; guarded by statusLock. */
    private boolean undelivered;
    private boolean finishing;

    RobotRun(RobotView robot, Lease lease, RobotRuns runs) {
        this.robot = robot;
        this.lease = lease;
        this.token = RobotToken.of(robot);
        this.runs = runs;
        this.robotLog = LoggerFactory.getLogger("robot." + robot.type());
        this.config = new RawBsonDocument(robot.config() == null ? new Document() : robot.config(), CODEC);
        this.state = new RawBsonDocument(robot.context() == null ? new Document() : robot.context(), CODEC);
        this.restarts = robot.restarts();
        this.lastError = robot.lastError();
    }

    @Override
    public RobotToken token() {
        return token;
    }

    void start() {
        thread = Thread.ofVirtual().name("robot-" + robot.id()).start(this::supervise);
    }

    @Override
    public boolean isAlive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    @Override
    public void requestStop(Stop why, String target) {
        synchronized (monitor) {
            if (stop == null) {
                moveTarget = target;
                stop = why;
            }
            monitor.notifyAll();
        }
    }

    @Override
    public void interrupt(boolean removal) {
        synchronized (monitor) {
            interrupted = true;
            removed |= removal;
            monitor.notifyAll();
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    @Override
    public boolean await(Duration atMost) throws InterruptedException {
        Thread t = thread;
        return t == null || t.join(atMost);
    }

    private void supervise() {
        MDC.put("robot", robot.id());
        MDC.put("slot", lease.slotId());
        Outcome outcome = Outcome.LOST;
        try {
            outcome = runWithRestarts();
        } finally {
            finish(outcome);
            runs.ended(this);
            MDC.clear();
        }
    }

    private Outcome runWithRestarts() {
        Deque<Long> failures = new ArrayDeque<>();
        while (true) {
            Optional<RobotFactory> factory = runs.types().get(robot.type());
            if (factory.isEmpty()) {
                lastError = "unknown robot type '" + robot.type() + "' (this node knows: "
                        + String.join(", ", runs.types().names()) + ")";
                log.warn("Robot {} cannot start: {}", robot.id(), lastError);
                return Outcome.FAILED;
            }
            Robot instance;
            try {
                instance = factory.get().create(config());
            } catch (RuntimeException e) {
                lastError = "cannot create: " + e;
                log.warn("Robot {} cannot be created: {}", robot.id(), e.toString());
                return Outcome.FAILED;
            }
            if (stopping()) {
                return stoppedBy();
            }
            status(new Document(STATE, RobotState.RUNNING.name()).append(NODE, runs.node()).append(RESTARTS, restarts));
            Throwable failure = null;
            try {
                instance.run(this);
            } catch (FencedException e) {
                interrupted = true;
            } catch (Throwable t) {
                failure = t;
            }
            if (stopping() || !lease.isValid()) {
                return stoppedBy();
            }
            if (failure == null) {
                log.info("Robot {} finished", robot.id());
                return Outcome.FINISHED;
            }
            restarts++;
            lastError = String.valueOf(failure);
            long now = System.nanoTime();
            failures.addLast(now);
            while (now - failures.getFirst() > runs.config().failureWindow().toNanos()) {
                failures.removeFirst();
            }
            if (failures.size() >= runs.config().failureLimit()) {
                log.warn("Robot {} failed {} times within {}; giving up: {}", robot.id(), failures.size(),
                        runs.config().failureWindow(), lastError, failure);
                return Outcome.FAILED;
            }
            Duration backoff = backoff(failures.size());
            log.warn("Robot {} failed; restarting in {} ms (restart {})", robot.id(), backoff.toMillis(), restarts, failure);
            status(new Document(RESTARTS, restarts).append(LAST_ERROR, lastError));
            if (!sleep(backoff)) {
                return stoppedBy();
            }
        }
    }

    /** The outcome of a run that was asked to stop, interrupted, or whose lease ended. */
    private Outcome stoppedBy() {
        if (interrupted || stop == null || !lease.isValid()) {
            return removed ? Outcome.REMOVED : Outcome.LOST;
        }
        return switch (stop) {
            case OPERATOR -> Outcome.STOPPED;
            case RELEASE -> Outcome.RELEASED;
            case MOVE -> Outcome.MOVED;
        };
    }

    private Duration backoff(int failuresInWindow) {
        Duration backoff = runs.config().restartBackoff().multipliedBy(1L << Math.min(failuresInWindow - 1, 20));
        return backoff.compareTo(runs.config().maxRestartBackoff()) > 0 ? runs.config().maxRestartBackoff() : backoff;
    }

    /** The run's last words, written under its token before the thread ends. */
    private void finish(Outcome outcome) {
        synchronized (statusLock) {
            // No status write may follow, or overtake, the final one.
            finishing = true;
        }
        Document fields = switch (outcome) {
            case STOPPED -> new Document(STATE, RobotState.STOPPED.name()).append(NODE, null);
            case RELEASED -> new Document(STATE, RobotState.PENDING.name()).append(NODE, null);
            case FINISHED -> new Document(STATE, RobotState.STOPPED.name()).append(NODE, null).append(DESIRED, "stopped");
            case FAILED -> new Document(STATE, RobotState.FAILED.name()).append(NODE, null)
                    .append(RESTARTS, restarts).append(LAST_ERROR, lastError);
            case MOVED, REMOVED, LOST -> null;
        };
        try {
            if (fields != null) {
                awaitWrite(fields);
            } else if (outcome == Outcome.MOVED && runs.store().handOver(token, moveTarget)) {
                log.info("Robot {} handed over from {} to {}", robot.id(), lease.slotId(), moveTarget);
            } else if (outcome == Outcome.REMOVED && runs.store().delete(token)) {
                log.info("Robot {} removed from {}", robot.id(), lease.slotId());
            }
        } catch (RuntimeException e) {
            // Still in its slot, fenced at this epoch, with its target or removal recorded: the next sync
            // of this slot's owner tries again.
            log.warn("Robot {} could not be settled after its run ({}) yet: {}", robot.id(), outcome, e.toString());
        }
    }

    /**
     * Sends a status change without waiting. If the database could not be reached, {@link #resendStatus()}
     * (called every poll) sends the whole current status again, so {@code state} and {@code restarts}
     * catch up, without any write per poll in the steady state.
     */
    private void status(Document fields) {
        synchronized (statusLock) {
            if (finishing) {
                return;
            }
            intended.putAll(fields);
            runs.writes().submit(RobotWrite.status(token, runs.sequence().next(), fields)).whenComplete((written, error) -> {
                if (Boolean.FALSE.equals(written)) {
                    reject();
                } else if (error != null && !(error instanceof IllegalArgumentException)) {
                    synchronized (statusLock) {
                        undelivered = true;
                    }
                }
            });
        }
    }

    @Override
    public void resendStatus() {
        Document fields;
        synchronized (statusLock) {
            if (!undelivered || finishing || stopping()) {
                return;
            }
            undelivered = false;
            fields = new Document(intended);
        }
        status(fields);
    }

    private void awaitWrite(Document fields) {
        try {
            Boolean written = runs.writes().submit(RobotWrite.status(token, runs.sequence().next(), fields))
                    .get(FINAL_WRITE.toMillis(), TimeUnit.MILLISECONDS);
            if (!written) {
                log.debug("Final state of {} not written: fenced", robot.id());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Final state of robot {} not written: {}", robot.id(), e.toString());
        }
    }

    /** A write under this run's token was rejected: another runner has the robot now. Stop at once. */
    private void reject() {
        if (!interrupted) {
            log.warn("Robot {} was fenced at epoch {} of {}: stopping it", robot.id(), lease.epoch(), lease.slotId());
            interrupt(false);
        }
    }

    private boolean stopping() {
        return stop != null || interrupted;
    }

    // ---- RobotContext ----

    @Override
    public String robotId() {
        return robot.id();
    }

    @Override
    public String slotId() {
        return lease.slotId();
    }

    @Override
    public long epoch() {
        return lease.epoch();
    }

    @Override
    public Document config() {
        return config.decode(CODEC);
    }

    @Override
    public Document state() {
        return state.decode(CODEC);
    }

    @Override
    public void checkpoint(Document newState) {
        // An immutable copy: the robot may go on changing its own document.
        RawBsonDocument snapshot = new RawBsonDocument(newState, CODEC);
        // One sequence number for every attempt: a retry is the same write, and whichever copy lands
        // first wins; a late copy of it after a newer checkpoint matches nothing.
        RobotWrite write = RobotWrite.checkpoint(token, runs.sequence().next(), snapshot);
        Duration retry = Duration.ofMillis(50);
        while (true) {
            if (interrupted || !lease.isValid()) {
                throw new FencedException("robot " + robot.id() + " may no longer write at epoch " + lease.epoch() + " of " + lease.slotId());
            }
            try {
                if (runs.writes().submit(write).get()) {
                    state = snapshot;
                    return;
                }
                reject();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                interrupted = true;
                throw new FencedException("robot " + robot.id() + " was interrupted during a checkpoint");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IllegalArgumentException refused) {
                    throw new IllegalArgumentException("checkpoint of robot " + robot.id() + " refused: " + refused.getMessage(), refused);
                }
                // Not acknowledged (unreachable, or not confirmed by a majority): retry while the lease holds.
                log.debug("Checkpoint of {} not acknowledged, retrying: {}", robot.id(), e.getCause().toString());
                if (!sleepQuietly(retry)) {
                    throw new FencedException("robot " + robot.id() + " stopped during a checkpoint");
                }
                retry = retry.multipliedBy(2).compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : retry.multipliedBy(2);
            }
        }
    }

    @Override
    public boolean stopRequested() {
        return stopping() || !lease.isValid();
    }

    @Override
    public boolean sleep(Duration duration) {
        return sleepQuietly(duration) && !stopRequested();
    }

    private boolean sleepQuietly(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (monitor) {
            while (!stopping()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return false;
        }
    }

    @Override
    public Logger log() {
        return robotLog;
    }
}
