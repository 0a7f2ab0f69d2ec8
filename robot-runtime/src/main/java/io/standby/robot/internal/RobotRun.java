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
 * the {@link RobotContext} the robot sees. Every write carries the run's fencing token
 * {@code (slotId, epoch)}.
 */
final class RobotRun implements RobotContext {

    private static final Logger log = LoggerFactory.getLogger(RobotRun.class);
    private static final DocumentCodec CODEC = new DocumentCodec();
    /** How long a final status write may take before the run gives up on it. */
    private static final Duration FINAL_WRITE = Duration.ofSeconds(10);

    /** Why a run ends, decided by whoever asks it to end; the first reason sticks, except a loss. */
    enum End { NONE, DESIRED, RELEASE, MOVE, REMOVED, LOST, FINISHED, FAILED }

    private final RobotView robot;
    private final Lease lease;
    private final RuntimeCore core;
    private final Logger robotLog;
    private final Object monitor = new Object();
    private volatile End end = End.NONE;
    private volatile boolean fenced;
    /** The robot's configuration, immutable; decoded afresh for every {@link #config()} call. */
    private final RawBsonDocument config;
    /** The last accepted state, immutable; decoded afresh for every {@link #state()} call. */
    private volatile RawBsonDocument state;
    private volatile Thread thread;
    private volatile String moveTarget;
    private int restarts;
    private String lastError;
    private final Object statusLock = new Object();
    /** Every status field this run has set, latest values; guarded by statusLock. */
    private final Document intended = new Document();
    /** A status write failed to arrive since the last resend; guarded by statusLock. */
    private boolean undelivered;
    private boolean finishing;

    RobotRun(RobotView robot, Lease lease, RuntimeCore core) {
        this.robot = robot;
        this.lease = lease;
        this.core = core;
        this.robotLog = LoggerFactory.getLogger("robot." + robot.type());
        this.config = new RawBsonDocument(robot.config() == null ? new Document() : robot.config(), CODEC);
        this.state = new RawBsonDocument(robot.context() == null ? new Document() : robot.context(), CODEC);
        this.restarts = robot.restarts();
        this.lastError = robot.lastError();
    }

    String id() {
        return robot.id();
    }

    void start() {
        core.alive.put(robot.id(), this);
        thread = Thread.ofVirtual().name("robot-" + robot.id()).start(this::supervise);
    }

    boolean isAlive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Asks the robot to finish: it sees {@link #stopRequested()} and its sleeps end. */
    void requestStop(End why, String target) {
        synchronized (monitor) {
            if (end == End.NONE) {
                moveTarget = target;
                end = why;
            }
            monitor.notifyAll();
        }
    }

    /** Stops the robot at once: its slot is lost or it was removed, so it may write nothing more. */
    void interrupt(End why) {
        synchronized (monitor) {
            end = why;
            fenced = true;
            monitor.notifyAll();
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    boolean await(Duration atMost) throws InterruptedException {
        Thread t = thread;
        return t == null || t.join(atMost);
    }

    private void supervise() {
        MDC.put("robot", robot.id());
        MDC.put("slot", lease.slotId());
        End outcome = End.NONE;
        try {
            outcome = runWithRestarts();
        } finally {
            finish(outcome);
            core.alive.remove(robot.id(), this);
            MDC.clear();
        }
    }

    private End runWithRestarts() {
        Deque<Long> failures = new ArrayDeque<>();
        while (true) {
            Optional<RobotFactory> factory = core.types.get(robot.type());
            if (factory.isEmpty()) {
                lastError = "unknown robot type '" + robot.type() + "' (this node knows: "
                        + String.join(", ", core.types.names()) + ")";
                log.warn("Robot {} cannot start: {}", robot.id(), lastError);
                return End.FAILED;
            }
            Robot instance;
            try {
                instance = factory.get().create(config());
            } catch (RuntimeException e) {
                lastError = "cannot create: " + e;
                log.warn("Robot {} cannot be created: {}", robot.id(), e.toString());
                return End.FAILED;
            }
            if (stopping()) {
                return end;
            }
            status(new Document(STATE, RobotState.RUNNING.name()).append(NODE, core.node).append(RESTARTS, restarts));
            Throwable failure = null;
            try {
                instance.run(this);
            } catch (FencedException e) {
                fenced = true;
            } catch (Throwable t) {
                failure = t;
            }
            if (fenced || end == End.LOST || end == End.REMOVED || !lease.isValid()) {
                return End.LOST;
            }
            if (end != End.NONE) {
                return end;
            }
            if (failure == null) {
                log.info("Robot {} finished", robot.id());
                return End.FINISHED;
            }
            restarts++;
            lastError = String.valueOf(failure);
            long now = System.nanoTime();
            failures.addLast(now);
            while (now - failures.getFirst() > core.config.failureWindow().toNanos()) {
                failures.removeFirst();
            }
            if (failures.size() >= core.config.failureLimit()) {
                log.warn("Robot {} failed {} times within {}; giving up: {}", robot.id(), failures.size(),
                        core.config.failureWindow(), lastError, failure);
                return End.FAILED;
            }
            Duration backoff = backoff(failures.size());
            log.warn("Robot {} failed; restarting in {} ms (restart {})", robot.id(), backoff.toMillis(), restarts, failure);
            status(new Document(RESTARTS, restarts).append(LAST_ERROR, lastError));
            if (!sleep(backoff)) {
                return fenced || end == End.NONE ? End.LOST : end;
            }
        }
    }

    private Duration backoff(int failuresInWindow) {
        Duration backoff = core.config.restartBackoff().multipliedBy(1L << Math.min(failuresInWindow - 1, 20));
        return backoff.compareTo(core.config.maxRestartBackoff()) > 0 ? core.config.maxRestartBackoff() : backoff;
    }

    /** The run's last words, written under its token before the thread ends. */
    private void finish(End outcome) {
        synchronized (statusLock) {
            // No status write may follow, or overtake, the final one.
            finishing = true;
        }
        Document fields = switch (outcome) {
            case DESIRED -> new Document(STATE, RobotState.STOPPED.name()).append(NODE, null);
            case RELEASE -> new Document(STATE, RobotState.PENDING.name()).append(NODE, null);
            case FINISHED -> new Document(STATE, RobotState.STOPPED.name()).append(NODE, null).append(DESIRED, "stopped");
            case FAILED -> new Document(STATE, RobotState.FAILED.name()).append(NODE, null)
                    .append(RESTARTS, restarts).append(LAST_ERROR, lastError);
            default -> null;
        };
        if (fields != null) {
            awaitWrite(fields);
        } else if (outcome == End.MOVE) {
            handOver();
        }
    }

    private void handOver() {
        try {
            if (core.store.handOver(robot.id(), lease.slotId(), lease.epoch(), moveTarget)) {
                log.info("Robot {} handed over from {} to {}", robot.id(), lease.slotId(), moveTarget);
            }
        } catch (RuntimeException e) {
            // Still in its old slot with its target set: the next sync tries again.
            log.warn("Robot {} could not be handed over to {} yet: {}", robot.id(), moveTarget, e.toString());
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
            core.writes.submit(robot.id(), lease.slotId(), lease.epoch(), fields).whenComplete((written, error) -> {
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

    /** If a status write failed to arrive, sends the run's whole current status again (if the run goes on). */
    void resendStatus() {
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
            Boolean written = core.writes.submit(robot.id(), lease.slotId(), lease.epoch(), fields)
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
        if (!fenced) {
            log.warn("Robot {} was fenced at epoch {} of {}: stopping it", robot.id(), lease.epoch(), lease.slotId());
            interrupt(End.LOST);
        }
    }

    private boolean stopping() {
        return end != End.NONE || fenced;
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
        Duration retry = Duration.ofMillis(50);
        while (true) {
            if (fenced || !lease.isValid()) {
                throw new FencedException("robot " + robot.id() + " may no longer write at epoch " + lease.epoch() + " of " + lease.slotId());
            }
            try {
                Boolean written = core.writes.submit(robot.id(), lease.slotId(), lease.epoch(),
                        new Document(RobotFields.CONTEXT, snapshot)).get();
                if (written) {
                    state = snapshot;
                    return;
                }
                reject();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fenced = true;
                throw new FencedException("robot " + robot.id() + " was interrupted during a checkpoint");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IllegalArgumentException refused) {
                    throw new IllegalArgumentException("checkpoint of robot " + robot.id() + " refused: " + refused.getMessage(), refused);
                }
                // Not acknowledged: retry the same write (it is idempotent) while the lease holds.
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
