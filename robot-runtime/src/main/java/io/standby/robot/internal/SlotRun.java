package io.standby.robot.internal;

import io.standby.robot.Desired;
import io.standby.robot.RobotState;
import io.standby.robot.RobotView;
import io.standby.slot.Lease;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.standby.robot.internal.RobotFields.NODE;
import static io.standby.robot.internal.RobotFields.STATE;

/**
 * The robots of one slot for as long as this node holds one lease on it.
 *
 * <p>On {@link #begin()} it raises the fencing epoch of every robot of the slot to the lease's epoch,
 * then loads them: every write of a former runner that landed before the fence is in what it loads,
 * and every later one is rejected. Then {@link #reconcile} runs every poll on the runtime's sync thread
 * and applies additions, stops, starts, moves and removals. {@link #lost()} and {@link #release} come
 * from the slot protocol's threads.
 */
final class SlotRun {

    private static final Logger log = LoggerFactory.getLogger(SlotRun.class);

    /**
     * Highest priority first; among equals, robots that were interrupted (the former runner never stopped
     * them) before the rest, as seed 002 asks; then by id.
     */
    static final Comparator<RobotView> START_ORDER = Comparator
            .comparingInt((RobotView r) -> -r.priority())
            .thenComparing(r -> r.state() == RobotState.RUNNING || r.state() == RobotState.STARTING ? 0 : 1)
            .thenComparing(RobotView::id);

    private final Lease lease;
    private final RuntimeCore core;
    private final Object lock = new Object();
    /** Runs started under this lease, by robot id. */
    private final Map<String, RobotRun> runs = new HashMap<>();
    /** Every robot of the slot seen so far; used only by the sync thread. */
    private final Set<String> seen = new HashSet<>();
    private boolean begun;
    private boolean ended;

    SlotRun(Lease lease, RuntimeCore core) {
        this.lease = lease;
        this.core = core;
    }

    Lease lease() {
        return lease;
    }

    boolean begun() {
        synchronized (lock) {
            return begun;
        }
    }

    boolean ended() {
        synchronized (lock) {
            return ended;
        }
    }

    /** Fences the slot's robots at this lease's epoch, takes the runnable ones, loads them and starts them. */
    void begin() {
        long fenced = core.store.fence(lease.slotId(), lease.epoch(), null);
        List<RobotView> robots = core.store.load(lease.slotId(), lease.epoch(), null);
        log.info("Starting the robots of {} at epoch {}: {} robot(s), {} fenced from earlier runners",
                lease.slotId(), lease.epoch(), robots.size(), fenced);
        synchronized (lock) {
            begun = true;
        }
        takeAndAct(robots);
    }

    /**
     * Applies what the watched fields of the slot's robots say. {@code robots} are this slot's robots
     * only; any robot seen before that is missing now was removed (or moved away while not running).
     */
    void reconcile(List<RobotView> robots) {
        Set<String> present = new HashSet<>();
        List<String> toFence = new ArrayList<>();
        List<RobotView> idle = new ArrayList<>();
        for (RobotView robot : robots) {
            present.add(robot.id());
            RobotRun run = run(robot.id());
            boolean running = run != null && run.isAlive();
            if (robot.epoch() < lease.epoch()) {
                // New to the slot (added, or moved in): bring it under this lease's token first.
                toFence.add(robot.id());
            } else if (robot.epoch() > lease.epoch()) {
                // A later owner of the slot fenced it: this lease is stale, whatever the protocol knows yet.
                if (running) {
                    run.interrupt(RobotRun.End.LOST);
                }
            } else if (running) {
                run.resendStatus();
                if (robot.moving()) {
                    run.requestStop(RobotRun.End.MOVE, robot.target());
                } else if (robot.desired() == Desired.STOPPED) {
                    run.requestStop(RobotRun.End.DESIRED, null);
                }
            } else if (needsAction(robot)) {
                idle.add(robot);
            }
        }
        for (String id : List.copyOf(seen)) {
            if (!present.contains(id)) {
                seen.remove(id);
                RobotRun run = run(id);
                if (run != null && run.isAlive()) {
                    log.info("Robot {} is no longer in {}: stopping it", id, lease.slotId());
                    run.interrupt(RobotRun.End.REMOVED);
                }
            }
        }
        seen.addAll(present);
        List<String> ids = new ArrayList<>(idle.stream().map(RobotView::id).toList());
        if (!toFence.isEmpty()) {
            core.store.fence(lease.slotId(), lease.epoch(), toFence);
            ids.addAll(toFence);
        }
        if (!ids.isEmpty()) {
            takeAndAct(core.store.load(lease.slotId(), lease.epoch(), ids));
        }
    }

    /** A robot fenced at this epoch, without a run here, that should run, move, or show that it stopped. */
    private boolean needsAction(RobotView robot) {
        if (robot.moving()) {
            return true;
        }
        if (robot.desired() == Desired.STOPPED) {
            return robot.state() != RobotState.STOPPED || robot.node() != null;
        }
        // desired decides; state only reports. A robot stopped a moment ago may be wanted again already.
        return robot.state() != RobotState.FAILED;
    }

    /**
     * Takes the runnable robots among {@code robots} (none whose earlier run on this node is still
     * unwinding), then starts those the database confirms as taken, most important first, and settles the
     * others: hands over the moving ones and marks the stopped ones.
     */
    private void takeAndAct(List<RobotView> robots) {
        seen.addAll(robots.stream().map(RobotView::id).toList());
        Set<String> runnable = robots.stream()
                .filter(r -> !r.moving() && r.desired() == Desired.RUNNING && needsAction(r) && !aliveAnywhere(r.id()))
                .map(RobotView::id)
                .collect(Collectors.toSet());
        // The order comes from the states before the take, which turns every taken robot into STARTING.
        List<String> order = robots.stream().sorted(START_ORDER).map(RobotView::id).toList();
        Map<String, RobotView> current = new HashMap<>();
        if (runnable.isEmpty()) {
            robots.forEach(r -> current.put(r.id(), r));
        } else {
            core.store.take(lease.slotId(), lease.epoch(), runnable, core.node);
            core.store.load(lease.slotId(), lease.epoch(), order).forEach(r -> current.put(r.id(), r));
        }
        for (String id : order) {
            RobotView robot = current.get(id);
            if (robot == null) {
                continue;
            }
            if (core.node.equals(robot.node()) && robot.state() == RobotState.STARTING && runnable.contains(id)) {
                start(robot);
            } else if (robot.moving()) {
                if (!aliveAnywhere(id) && core.store.handOver(id, lease.slotId(), lease.epoch(), robot.target())) {
                    log.info("Robot {} handed over from {} to {}", id, lease.slotId(), robot.target());
                }
            } else if (robot.desired() == Desired.STOPPED && (robot.state() != RobotState.STOPPED || robot.node() != null)) {
                core.writes.submit(id, lease.slotId(), lease.epoch(),
                        new Document(STATE, RobotState.STOPPED.name()).append(NODE, null));
            }
        }
    }

    private void start(RobotView robot) {
        synchronized (lock) {
            if (ended) {
                return;
            }
            RobotRun run = new RobotRun(robot, lease, core);
            runs.put(robot.id(), run);
            run.start();
        }
    }

    private boolean aliveAnywhere(String robotId) {
        RobotRun run = core.alive.get(robotId);
        return run != null && run.isAlive();
    }

    private RobotRun run(String id) {
        synchronized (lock) {
            return runs.get(id);
        }
    }

    /** The slot is lost: every robot stops at once. Never blocks. */
    void lost() {
        for (RobotRun run : end()) {
            run.interrupt(RobotRun.End.LOST);
        }
    }

    /**
     * Graceful stop: asks every robot to finish, waits up to {@code timeout} for their final checkpoints,
     * interrupts the rest, and returns once every run has ended (or a second grace period passed).
     */
    void release(Duration timeout) {
        List<RobotRun> stopping = end();
        stopping.forEach(run -> run.requestStop(RobotRun.End.RELEASE, null));
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            for (RobotRun run : stopping) {
                long left = Math.max(0, deadline - System.nanoTime());
                if (!run.await(Duration.ofNanos(left))) {
                    log.warn("Robot {} did not stop within {}; interrupting it", run.id(), timeout);
                    run.interrupt(RobotRun.End.LOST);
                }
            }
            for (RobotRun run : stopping) {
                if (!run.await(Duration.ofSeconds(5))) {
                    log.error("Robot {} ignores interruption; its writes are fenced once another node owns {}", run.id(), lease.slotId());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.forEach(run -> run.interrupt(RobotRun.End.LOST));
        }
    }

    private List<RobotRun> end() {
        synchronized (lock) {
            ended = true;
            return List.copyOf(runs.values());
        }
    }

    /** Robots running under this lease right now. */
    List<String> running() {
        synchronized (lock) {
            return runs.values().stream().filter(RobotRun::isAlive).map(RobotRun::id).sorted().toList();
        }
    }
}
