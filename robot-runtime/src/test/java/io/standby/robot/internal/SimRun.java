package io.standby.robot.internal;

import io.standby.robot.admin.RobotState;
import io.standby.robot.admin.RobotView;
import io.standby.slot.Lease;
import org.bson.Document;

import java.time.Duration;

/**
 * One run of a robot in the simulation, stepping through what {@link RobotRun} does on its thread: a
 * counter that checkpoints every interval under its token (one sequence number per checkpoint, kept
 * for its retries), retries a checkpoint that was not acknowledged while its lease is valid, stops at
 * once when a write of it is rejected, and when it ends writes its last words as {@code RobotRun} does:
 * a final status, a hand-over, or the deletion of a removed robot. Its events are its node's, so a
 * paused node's run is paused too, and a killed node's run is gone.
 */
final class SimRun implements Run {

    private enum Outcome { STOPPED, RELEASED, MOVED, REMOVED, LOST }

    /** How long a final status write may take before the run gives up on it, as in RobotRun. */
    private static final long FINAL_WRITE = Duration.ofSeconds(10).toNanos();

    final SimNode node;
    final RobotToken token;
    final Lease lease;
    final long restored;
    final long startedAt;
    private final long interval;
    private long count;
    private Stop stop;
    private String moveTarget;
    private boolean interrupted;
    private boolean removed;
    private boolean finishing;
    private boolean ended;
    /** The checkpoint in flight, kept for its retries; null when none is. */
    private RobotWrite checkpoint;
    private long retry;
    private final Document intended = new Document();
    private boolean undelivered;

    SimRun(SimNode node, RobotView robot, Lease lease) {
        this.node = node;
        this.token = RobotToken.of(robot);
        this.lease = lease;
        this.restored = robot.context().get("count") instanceof Number n ? n.longValue() : 0;
        this.count = restored;
        this.interval = robot.config().get("intervalMs", Number.class).longValue() * Sim.MS;
        this.startedAt = node.sim.now();
    }

    void start() {
        node.world.checker.launched(this);
        node.sim.note(node + " starts " + token + " from " + restored);
        status(new Document(RobotFields.STATE, RobotState.RUNNING.name()).append(RobotFields.NODE, node.name()));
        node.after(interval, this::tick);
    }

    @Override
    public RobotToken token() {
        return token;
    }

    @Override
    public boolean isAlive() {
        return !ended;
    }

    private boolean stopping() {
        return stop != null || interrupted;
    }

    private void tick() {
        if (finishing || ended || checkpoint != null) {
            return;
        }
        if (stopping()) {
            finish(stoppedBy());
            return;
        }
        count++;
        checkpoint = RobotWrite.checkpoint(token, node.sequence.next(), new Document("count", count));
        retry = 50 * Sim.MS;
        attempt();
    }

    private void attempt() {
        if (finishing || ended) {
            return;
        }
        if (interrupted || !lease.isValid()) {
            // RobotContext.checkpoint throws FencedException: the robot returns at once.
            interrupted = true;
            finish(stoppedBy());
            return;
        }
        node.writes.submit(checkpoint).whenComplete((written, error) -> {
            if (ended || finishing) {
                return;
            }
            if (Boolean.TRUE.equals(written)) {
                node.world.checker.acked(this, count);
                checkpoint = null;
                if (stopping()) {
                    finish(stoppedBy());
                } else {
                    node.after(interval, this::tick);
                }
            } else if (Boolean.FALSE.equals(written)) {
                reject();
            } else {
                // Not acknowledged: the same write again after a pause, unless the robot is asked to stop
                // meanwhile (its sleep ends early and the checkpoint throws).
                long wait = retry;
                retry = Math.min(retry * 2, 1000 * Sim.MS);
                node.after(wait, () -> {
                    if (stopping()) {
                        interrupted = true;
                        finish(stoppedBy());
                    } else {
                        attempt();
                    }
                });
            }
        });
    }

    private void reject() {
        if (!interrupted) {
            node.sim.note(node + " fenced " + token);
            interrupt(false);
        }
    }

    @Override
    public void requestStop(Stop why, String target) {
        if (stop == null) {
            stop = why;
            moveTarget = target;
        }
        // The robot's sleep ends at once; a checkpoint in flight finishes first.
        node.after(0, this::tick);
    }

    @Override
    public void interrupt(boolean removal) {
        boolean first = !interrupted;
        interrupted = true;
        removed |= removal;
        if (first && !ended) {
            // A robot takes a moment to notice its interrupt; far less than the fence margin.
            node.after(node.sim.between(0, 3 * Sim.MS), () -> {
                if (!finishing) {
                    finish(stoppedBy());
                } else {
                    end();
                }
            });
        }
    }

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

    private void finish(Outcome outcome) {
        if (finishing || ended) {
            return;
        }
        finishing = true;
        switch (outcome) {
            case STOPPED -> finalStatus(RobotState.STOPPED);
            case RELEASED -> finalStatus(RobotState.PENDING);
            case MOVED -> {
                try {
                    node.robotStore.handOver(token, moveTarget);
                } catch (RuntimeException e) {
                    // The next sync of the slot's owner tries again.
                }
                end();
            }
            case REMOVED -> {
                try {
                    node.robotStore.delete(token);
                } catch (RuntimeException e) {
                    // The next sync of the slot's owner tries again.
                }
                end();
            }
            case LOST -> end();
        }
    }

    private void finalStatus(RobotState state) {
        node.writes.submit(RobotWrite.status(token, node.sequence.next(),
                new Document(RobotFields.STATE, state.name()).append(RobotFields.NODE, null))).whenComplete((w, e) -> end());
        node.after(FINAL_WRITE, this::end);
    }

    private void status(Document fields) {
        if (finishing) {
            return;
        }
        intended.putAll(fields);
        node.writes.submit(RobotWrite.status(token, node.sequence.next(), fields)).whenComplete((written, error) -> {
            if (Boolean.FALSE.equals(written)) {
                reject();
            } else if (error != null && !(error instanceof IllegalArgumentException)) {
                undelivered = true;
            }
        });
    }

    @Override
    public void resendStatus() {
        if (undelivered && !finishing && !stopping()) {
            undelivered = false;
            status(new Document(intended));
        }
    }

    @Override
    public boolean await(Duration atMost) {
        node.sim.runNested(node.sim.now() + atMost.toNanos(), () -> ended);
        return ended;
    }

    /** The run has ended: its thread is gone. */
    void end() {
        if (ended) {
            return;
        }
        ended = true;
        node.sim.note(node + " ended " + token + " at " + count);
        node.runEnded(this);
    }

    /** The node's process was killed: the run stopped that instant, writing nothing more. */
    /** Launched by a process that is gone: it ends before it ever ran. */
    void neverStarted() {
        ended = true;
        finishing = true;
    }

    void killed() {
        ended = true;
        finishing = true;
        node.world.checker.ended(this);
    }

    boolean ended() {
        return ended;
    }

    /** The robot has returned: the run only says its last words now (a final status, a hand-over, a deletion). */
    @Override
    public boolean finishing() {
        return finishing;
    }

    @Override
    public String toString() {
        return token + " on " + node + " since " + startedAt / Sim.MS + "ms";
    }
}
