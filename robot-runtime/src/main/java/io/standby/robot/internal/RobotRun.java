package io.standby.robot.internal;

import static io.standby.robot.model.RobotFields.DESIRED;
import static io.standby.robot.model.RobotFields.LAST_ERROR;
import static io.standby.robot.model.RobotFields.NODE;
import static io.standby.robot.model.RobotFields.RESTARTS;
import static io.standby.robot.model.RobotFields.STATE;

import io.standby.robot.FencedException;
import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.Lease;
import java.time.Duration;
import java.util.Optional;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One robot on this node, from its start until its thread ends: a thread of its own that creates the robot, runs it
 * with its {@link RunContext}, restarts it when it throws (as its {@link Supervisor} decides), and then says its last
 * words under its token: a final status, a hand-over, or the deletion of a removed robot.
 */
final class RobotRun implements Run {

    private static final Logger log = LoggerFactory.getLogger(RobotRun.class);
    /** How long a final status write may take before the run gives up on it. */
    static final Duration FINAL_WRITE = Duration.ofSeconds(10);

    /** How a run ended, which decides its last words. */
    private enum Outcome {
        STOPPED,
        RELEASED,
        MOVED,
        REMOVED,
        LOST,
        FINISHED,
        FAILED
    }

    private final RobotView robot;
    private final Lease lease;
    private final RobotToken token;
    private final RobotRuns runs;
    private final RunControl control;
    private final RunStatus status;
    private final RunContext context;
    private final Supervisor supervisor;
    private volatile RunThreads.Worker thread;
    private volatile boolean finishing;
    private int restarts;
    private String lastError;

    RobotRun(RobotView robot, Lease lease, RobotRuns runs) {
        this.robot = robot;
        this.lease = lease;
        this.token = RobotToken.of(robot);
        this.runs = runs;
        this.control = new RunControl(runs.threads());
        this.status = new RunStatus(token, runs.writes(), runs.threads(), runs.sequence(), this::reject);
        RunContext.Launch launch = new RunContext.Launch(token, lease, robot.type(), robot.config(), robot.context());
        this.context = new RunContext(
                launch,
                control,
                new RunContext.Checkpoints(runs.writes(), runs.threads(), runs.sequence(), runs.clock()),
                this::reject,
                latency -> runs.tell(l -> l.checkpointed(robot.id(), latency)));
        this.supervisor = new Supervisor(runs.config(), runs.clock());
        this.restarts = robot.restarts();
        this.lastError = robot.lastError();
    }

    @Override
    public RobotToken token() {
        return token;
    }

    void start() {
        thread = runs.threads().start("robot-" + robot.id(), this::supervise);
    }

    @Override
    public boolean isAlive() {
        RunThreads.Worker t = thread;
        return t != null && t.isAlive();
    }

    @Override
    public void requestStop(Stop why, String target) {
        control.requestStop(why, target);
    }

    @Override
    public void interrupt() {
        control.interrupt();
        interruptThread();
    }

    @Override
    public void interruptRemoved() {
        control.interruptRemoved();
        interruptThread();
    }

    private void interruptThread() {
        RunThreads.Worker t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    @Override
    public void resendStatus() {
        if (!control.stopping()) {
            status.resend();
        }
    }

    @Override
    public boolean finishing() {
        return finishing;
    }

    @Override
    public boolean await(Duration atMost) throws InterruptedException {
        RunThreads.Worker t = thread;
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
                instance = factory.get().create(context.config());
            } catch (RuntimeException e) {
                lastError = "cannot create: " + e;
                log.warn("Robot {} cannot be created: {}", robot.id(), e.toString());
                return Outcome.FAILED;
            }
            // The thread may start, or wake from a backoff, long after the launch (a pause, a collection):
            // the robot's context is the one its lease's take read, so without that lease it must not run.
            if (control.stopping() || !lease.isValid()) {
                return stoppedBy();
            }
            status.send(new Document(STATE, RobotState.RUNNING.name())
                    .append(NODE, runs.node())
                    .append(RESTARTS, restarts));
            runs.event(this, "robot-started", restarts == 0 ? new Document() : new Document("restarts", restarts));
            Throwable failure = null;
            try {
                instance.run(context);
            } catch (FencedException e) {
                // A checkpoint cut short by a graceful stop is no fence: the run still holds its token and
                // ends as asked, with its final state. A real fence or an interrupt marked the run already.
                if (control.stop() == null) {
                    control.interrupt();
                }
            } catch (Throwable t) {
                failure = t;
            }
            if (control.stopping() || !lease.isValid()) {
                return stoppedBy();
            }
            if (failure == null) {
                log.info("Robot {} finished", robot.id());
                return Outcome.FINISHED;
            }
            restarts++;
            lastError = String.valueOf(failure);
            Optional<Duration> backoff = supervisor.failed();
            if (backoff.isEmpty()) {
                log.warn(
                        "Robot {} failed {} times within {}; giving up: {}",
                        robot.id(),
                        supervisor.failures(),
                        runs.config().failureWindow(),
                        lastError,
                        failure);
                return Outcome.FAILED;
            }
            log.warn(
                    "Robot {} failed; restarting in {} ms (restart {})",
                    robot.id(),
                    backoff.get().toMillis(),
                    restarts,
                    failure);
            status.send(new Document(RESTARTS, restarts).append(LAST_ERROR, lastError));
            runs.event(
                    this,
                    "robot-restarting",
                    new Document("error", lastError)
                            .append("inMs", backoff.get().toMillis()));
            runs.tell(l -> l.restarting(robot.id()));
            if (!control.sleep(backoff.get())) {
                return stoppedBy();
            }
        }
    }

    /** The outcome of a run that was asked to stop, interrupted, or whose lease ended. */
    private Outcome stoppedBy() {
        if (control.interrupted() || control.stop() == null || !lease.isValid()) {
            return control.removed() ? Outcome.REMOVED : Outcome.LOST;
        }
        return switch (control.stop()) {
            case OPERATOR -> Outcome.STOPPED;
            case RELEASE -> Outcome.RELEASED;
            case MOVE -> Outcome.MOVED;
        };
    }

    /** The run's last words, under its token, before the thread ends. */
    private void finish(Outcome outcome) {
        finishing = true;
        // The interrupt stopped the robot; it must not fail the run's own last words.
        Thread.interrupted();
        // No status write may follow, or overtake, the final one.
        status.finishing();
        Document fields = switch (outcome) {
            case STOPPED -> new Document(STATE, RobotState.STOPPED.name()).append(NODE, null);
            case RELEASED -> new Document(STATE, RobotState.PENDING.name()).append(NODE, null);
            case FINISHED ->
                new Document(STATE, RobotState.STOPPED.name())
                        .append(NODE, null)
                        .append(DESIRED, "stopped");
            case FAILED ->
                new Document(STATE, RobotState.FAILED.name())
                        .append(NODE, null)
                        .append(RESTARTS, restarts)
                        .append(LAST_ERROR, lastError);
            case MOVED, REMOVED, LOST -> null;
        };
        if (outcome == Outcome.FAILED) {
            runs.tell(l -> l.failed(robot.id()));
        }
        runs.event(
                this,
                "robot-" + outcome.name().toLowerCase(),
                switch (outcome) {
                    case FAILED -> new Document("error", lastError);
                    case MOVED -> new Document("to", control.moveTarget());
                    default -> new Document();
                });
        try {
            if (fields != null) {
                status.finalWrite(fields, FINAL_WRITE);
            } else if (outcome == Outcome.MOVED
                    && runs.store().handOver(RobotRules.handOver(token, robot.state(), control.moveTarget()))) {
                log.info("Robot {} handed over from {} to {}", robot.id(), lease.slotId(), control.moveTarget());
            } else if (outcome == Outcome.REMOVED && runs.store().delete(token)) {
                log.info("Robot {} removed from {}", robot.id(), lease.slotId());
            }
        } catch (RuntimeException e) {
            // Still in its slot, fenced at this epoch, with its target or removal recorded: the next sync
            // of this slot's owner tries again.
            log.warn("Robot {} could not be settled after its run ({}) yet: {}", robot.id(), outcome, e.toString());
        }
    }

    /** A write under this run's token was rejected: another runner has the robot now. Stop at once. */
    private void reject() {
        runs.tell(l -> l.fenced(robot.id()));
        if (!control.interrupted()) {
            log.warn("Robot {} was fenced at epoch {} of {}: stopping it", robot.id(), lease.epoch(), lease.slotId());
            interrupt();
        }
    }
}
