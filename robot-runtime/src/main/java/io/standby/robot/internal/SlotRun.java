package io.standby.robot.internal;

import static io.standby.robot.model.RobotFields.NODE;
import static io.standby.robot.model.RobotFields.STATE;

import io.standby.robot.internal.RobotDecision.Action;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The robots of one slot for as long as this node holds one lease on it.
 *
 * <p>On {@link #begin()} it raises the fencing epoch of every robot of the slot to the lease's epoch, then loads them:
 * every write of a former runner that landed before the fence is in what it loads, and every later one is rejected.
 * Then {@link #reconcile} runs every poll on the runtime's sync thread and applies what {@link RobotDecision} says
 * about each robot. {@link #lost()} and {@link #release} come from the slot protocol's threads.
 */
public final class SlotRun {

    private static final Logger log = LoggerFactory.getLogger(SlotRun.class);
    /** How many robots one take asks for at most. */
    static final int TAKE_CHUNK = 500;

    /**
     * Highest priority first; among equals, robots that were interrupted (the former runner never stopped them) before
     * the rest, since they were cut off mid-work; then by id.
     */
    static final Comparator<RobotView> START_ORDER = Comparator.comparingInt((RobotView r) -> -r.priority())
            .thenComparing(r -> r.state() == RobotState.RUNNING || r.state() == RobotState.STARTING ? 0 : 1)
            .thenComparing(RobotView::id);

    private final Lease lease;
    private final RuntimeCore core;
    private final Object lock = new Object();
    /** Runs started under this lease, by robot id. */
    private final Map<String, Run> runs = new HashMap<>();
    /** Every robot of the slot seen so far; used only by the sync thread. */
    private final Set<String> seen = new HashSet<>();

    private boolean begun;
    private boolean ended;
    /**
     * How many robots this run's combined fences and takes took, over every attempt of {@link #begin}: one that failed
     * after its write (the load timed out, say) started none of them, and the next attempt starts them as taken.
     */
    private long fencedAndTaken;
    /**
     * Whether an earlier run of this lease (paused, then resumed under the same epoch) held tokens at this epoch: then
     * no robot starts without a take of its own, whatever the counts say.
     */
    private final boolean resumed;
    /** How many of the slot's robots showed FAILED at the last read. */
    private volatile int failed;

    public SlotRun(Lease lease, RuntimeCore core) {
        this(lease, core, false);
    }

    private SlotRun(Lease lease, RuntimeCore core, boolean resumed) {
        this.lease = lease;
        this.core = core;
        this.resumed = resumed;
    }

    /** The run of a lease that paused and resumed under its epoch: its robots are always taken again. */
    public static SlotRun resumed(Lease lease, RuntimeCore core) {
        return new SlotRun(lease, core, true);
    }

    public Lease lease() {
        return lease;
    }

    public boolean begun() {
        synchronized (lock) {
            return begun;
        }
    }

    public boolean ended() {
        synchronized (lock) {
            return ended;
        }
    }

    /**
     * Fences the slot's robots at this lease's epoch, loads them, and takes and starts the runnable ones.
     *
     * <p>The runnable robots below the epoch are fenced and taken in one update each ({@link RobotStore#fenceAndTake}),
     * the others fenced alone; then every robot is loaded. The load follows both writes, so every write of a former
     * runner that landed before them is in what it loads, and every later one is rejected, as with a fence alone. A
     * robot the combined update took is loaded as taken, but for its state ({@link #asLaunched}): it starts without a
     * take of its own, since the update asked of it all that a take asks (runnable; and, at this epoch, which no
     * earlier run ever held, nobody else's). An operator's change between the update and the load (a stop, a removal, a
     * move) is in what the load shows, and {@link RobotDecision} then settles the robot instead of launching it; one
     * after the load is read at the next reconcile, as one after a take is.
     */
    public void begin() {
        long began = core.clock().nanoTime();
        long tookNow = core.store().fenceAndTake(lease.slotId(), lease.epoch(), core.node());
        fencedAndTaken += tookNow;
        long fenced = core.store().fence(lease.slotId(), lease.epoch(), null);
        long written = core.clock().nanoTime();
        List<RobotView> robots = core.store().load(lease.slotId(), lease.epoch(), null);
        log.info(
                "Starting the robots of {} at epoch {}: {} robot(s), {} fenced from earlier runners and taken, {} "
                        + "fenced only ({} ms), loaded in {} ms",
                lease.slotId(),
                lease.epoch(),
                robots.size(),
                tookNow,
                fenced,
                (written - began) / 1_000_000,
                (core.clock().nanoTime() - written) / 1_000_000);
        synchronized (lock) {
            begun = true;
        }
        seen.addAll(robots.stream().map(RobotView::id).toList());
        countFailed(robots);
        act(robots, true, takenAtFence(robots));
    }

    /**
     * The robots that the combined fence and take took, as loaded: those this node holds at this epoch, if this is the
     * lease's first run and there are as many as its combined writes took. Only a run of a resumed lease can find
     * robots that an earlier run took at this epoch, whose runs may still have writes on the way; counts alone cannot
     * tell them apart (a robot moved out between the write and the load makes room for one of them), so a resumed run
     * starts none without a take of its own, which gives each run a new token. More robots than were taken means an
     * earlier attempt of this begin took some by a take: they are taken again too.
     */
    private Set<String> takenAtFence(List<RobotView> robots) {
        Set<String> taken = new HashSet<>();
        for (RobotView robot : robots) {
            if (robot.epoch() == lease.epoch() && core.node().equals(robot.node())) {
                taken.add(robot.id());
            }
        }
        return !resumed && taken.size() == fencedAndTaken ? taken : Set.of();
    }

    private void countFailed(List<RobotView> robots) {
        failed = (int)
                robots.stream().filter(r -> r.state() == RobotState.FAILED).count();
    }

    /** How many of the slot's robots failed for good, as last read. */
    int failed() {
        return failed;
    }

    /**
     * Applies what the watched fields of the slot's robots say. {@code robots} are this slot's robots only; any robot
     * seen before that is missing now was removed (or moved away while not running).
     */
    public void reconcile(List<RobotView> robots) {
        countFailed(robots);
        Set<String> present = new HashSet<>();
        List<String> toFence = new ArrayList<>();
        List<RobotView> toSettle = new ArrayList<>();
        for (RobotView robot : robots) {
            present.add(robot.id());
            Run run = liveRun(robot.id());
            Action action = decide(robot, run);
            switch (action) {
                case FENCE -> toFence.add(robot.id());
                case INTERRUPT_LOST -> run.interrupt();
                case INTERRUPT_REMOVED -> {
                    log.info("Robot {} was removed: stopping it", robot.id());
                    run.interruptRemoved();
                }
                case STOP_FOR_MOVE -> run.requestStop(Run.Stop.MOVE, robot.target());
                case STOP -> run.requestStop(Run.Stop.OPERATOR, null);
                case KEEP -> run.resendStatus();
                case DELETE, HAND_OVER, MARK_STOPPED, TAKE, LAUNCH -> toSettle.add(robot);
                case WAIT, NONE -> {}
            }
        }
        for (String id : List.copyOf(seen)) {
            if (!present.contains(id)) {
                seen.remove(id);
                Run run = liveRun(id);
                if (run != null) {
                    log.info("Robot {} is no longer in {}: stopping it", id, lease.slotId());
                    run.interruptRemoved();
                }
            }
        }
        seen.addAll(present);
        if (!toFence.isEmpty()) {
            core.store().fence(lease.slotId(), lease.epoch(), toFence);
            toSettle.addAll(core.store().load(lease.slotId(), lease.epoch(), toFence));
        }
        if (!toSettle.isEmpty()) {
            // Mostly the watched fields only, without config or context: whatever act starts is read again.
            act(toSettle, false, Set.of());
        }
    }

    private Action decide(RobotView robot, Run run) {
        return RobotDecision.decide(
                robot,
                lease.epoch(),
                core.node(),
                run == null ? null : run.token(),
                core.launcher().aliveOnNode(robot.id()) ? RobotDecision.OnNode.RUN_ALIVE : RobotDecision.OnNode.NO_RUN);
    }

    /**
     * Settles robots nobody runs here: deletes, hands over and marks stopped what the decision says, then takes the
     * runnable ones and starts those the database confirms as taken, most important first.
     *
     * @param whole whether every view is a whole document loaded at this lease's epoch, which the take may then
     *     complete instead of a read (see {@link #asTaken})
     * @param takenAtFence robots whose views are whole documents loaded after this lease took them: those of them to
     *     launch start as loaded, without a take
     */
    private void act(List<RobotView> robots, boolean whole, Set<String> takenAtFence) {
        // The order comes from the states before the take, which turns every taken robot into STARTING.
        List<RobotView> ordered = robots.stream().sorted(START_ORDER).toList();
        List<String> toStart = new ArrayList<>();
        List<String> toTake = new ArrayList<>();
        for (RobotView robot : ordered) {
            RobotToken token = RobotToken.of(robot);
            switch (decide(robot, liveRun(robot.id()))) {
                case DELETE -> {
                    if (core.store().delete(token)) {
                        log.info("Robot {} removed from {}", robot.id(), lease.slotId());
                    }
                }
                case HAND_OVER -> {
                    if (core.store().handOver(RobotRules.handOver(token, robot.state(), robot.target()))) {
                        log.info("Robot {} handed over from {} to {}", robot.id(), lease.slotId(), robot.target());
                    }
                }
                case MARK_STOPPED ->
                    core.writes()
                            .submit(RobotWrite.status(
                                    token,
                                    core.sequence().next(),
                                    new Document(STATE, RobotState.STOPPED.name()).append(NODE, null)));
                // Taken again even when an earlier take of this lease left it STARTING here: the take gives the
                // run a token of its own, which no earlier run of it on this node ever held.
                case TAKE, LAUNCH -> {
                    if (!takenAtFence.contains(robot.id())) {
                        toTake.add(robot.id());
                    }
                    toStart.add(robot.id());
                }
                default -> {}
            }
        }
        if (toStart.isEmpty()) {
            return;
        }
        Map<String, RobotView> views = new HashMap<>();
        ordered.forEach(r -> views.put(r.id(), r));
        Set<String> taking = Set.copyOf(toTake);
        long began = core.clock().nanoTime();
        long took = 0;
        long launching = 0;
        int rereads = 0;
        // In chunks, in start order: the first robots run while later ones are still being taken, and a
        // take's filter holds a bounded list of ids (the embedded server compares each robot it updates
        // with every id of the list: one take of 10,000 cost it 50 million comparisons).
        for (int from = 0; from < toStart.size(); from += TAKE_CHUNK) {
            List<String> chunk = toStart.subList(from, Math.min(toStart.size(), from + TAKE_CHUNK));
            List<String> chunkTake = chunk.stream().filter(taking::contains).toList();
            Map<String, RobotView> taken = new HashMap<>();
            chunk.stream().filter(id -> !taking.contains(id)).forEach(id -> taken.put(id, asLaunched(views.get(id))));
            if (!chunkTake.isEmpty()) {
                long chunkTook = core.store().take(lease.slotId(), lease.epoch(), chunkTake, core.node());
                took += chunkTook;
                if (whole && chunkTook == chunkTake.size()) {
                    chunkTake.forEach(id -> taken.put(id, asTaken(views.get(id))));
                } else {
                    // A partial take, or views that are not whole: what the database holds now decides.
                    rereads++;
                    core.store().load(lease.slotId(), lease.epoch(), chunkTake).forEach(r -> taken.put(r.id(), r));
                }
            }
            long launch = core.clock().nanoTime();
            for (String id : chunk) {
                RobotView robot = taken.get(id);
                if (robot != null && decide(robot, liveRun(id)) == Action.LAUNCH) {
                    start(robot);
                }
            }
            launching += core.clock().nanoTime() - launch;
        }
        if (!toStart.isEmpty()) {
            // The start's phases, for the scale benchmark's breakdown (docs/BENCHMARKS.md).
            log.info(
                    "Took {} of {} robot(s) of {} at epoch {} ({} taken with their fence) in {} ms ({} chunk(s) read "
                            + "again), launching them took {} ms of it",
                    took + toStart.size() - toTake.size(),
                    toStart.size(),
                    lease.slotId(),
                    lease.epoch(),
                    toStart.size() - toTake.size(),
                    (core.clock().nanoTime() - began) / 1_000_000,
                    rereads,
                    launching / 1_000_000);
        }
    }

    /**
     * A taken robot as a read after the take would show it, without that read of N whole documents. Sound only when the
     * database confirmed the take of every robot of the chunk (a majority-acknowledged update whose filter held each at
     * this epoch, runnable, run by nobody else): then each one is its loaded document plus the take's own changes (a
     * fence more, and no target, which the take required). After the fence at this epoch no earlier runner can write to
     * them, and no run of this lease exists for them yet; an operator's change in between (stop, remove, move) fails
     * the take's conditions and so the count, and then act reads them again. Only {@code updated} stays as loaded:
     * nothing here reads it.
     */
    private RobotView asTaken(RobotView r) {
        return starting(r, core.node(), r.fences() + 1, null);
    }

    /**
     * A robot the combined fence and take took, as its run starts it: the document as loaded after that update, which
     * kept the state a former runner left where a take would have made it STARTING.
     */
    private static RobotView asLaunched(RobotView r) {
        return starting(r, r.node(), r.fences(), r.target());
    }

    /** {@code r} as its run starts it: STARTING, with the given runner, token count and target. */
    private static RobotView starting(RobotView r, String node, long fences, String target) {
        return new RobotView(
                r.id(),
                r.incarnation(),
                r.type(),
                r.slotId(),
                r.priority(),
                r.weight(),
                r.config(),
                r.desired(),
                RobotState.STARTING,
                node,
                r.context(),
                r.epoch(),
                fences,
                r.restarts(),
                r.lastError(),
                target,
                r.updated());
    }

    private void start(RobotView robot) {
        synchronized (lock) {
            if (ended) {
                return;
            }
            runs.put(robot.id(), core.launcher().launch(robot, lease));
        }
    }

    /** This lease's run of the robot, if it is still alive. */
    private Run liveRun(String id) {
        synchronized (lock) {
            Run run = runs.get(id);
            return run != null && run.isAlive() ? run : null;
        }
    }

    /** Sends again the status writes of this lease's runs that failed to arrive. */
    void resendStatuses() {
        synchronized (lock) {
            runs.values().stream().filter(Run::isAlive).forEach(Run::resendStatus);
        }
    }

    /** The slot is lost: every robot stops at once. Never blocks. */
    public void lost() {
        for (Run run : end()) {
            run.interrupt();
        }
    }

    /**
     * Graceful stop: asks every robot to finish, waits up to {@code timeout} for their final checkpoints, interrupts
     * the robots still running then, and returns once every run has ended (or a second grace period passed). A run
     * whose robot has returned is not interrupted: it is writing its final state, under a timeout of its own, and the
     * slot must not be released before that write.
     */
    public void release(Duration timeout) {
        List<Run> stopping = end();
        stopping.forEach(run -> run.requestStop(Run.Stop.RELEASE, null));
        long deadline = core.clock().nanoTime() + timeout.toNanos();
        try {
            for (Run run : stopping) {
                long left = Math.max(0, deadline - core.clock().nanoTime());
                if (!run.await(Duration.ofNanos(left)) && !run.finishing()) {
                    log.warn(
                            "Robot {} did not stop within {}; interrupting it",
                            run.token().robotId(),
                            timeout);
                    run.interrupt();
                }
            }
            // One deadline for all: the runs end together, and a final write gives up after its own timeout.
            long graceEnd = core.clock().nanoTime() + RobotRun.FINAL_WRITE.toNanos();
            for (Run run : stopping) {
                long left = Math.max(0, graceEnd - core.clock().nanoTime());
                if (!run.await(Duration.ofNanos(left))) {
                    log.error(
                            "Robot {} ignores interruption; its writes are fenced once another node owns {}",
                            run.token().robotId(),
                            lease.slotId());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.forEach(Run::interrupt);
        }
    }

    /**
     * After {@link #lost()}: waits for the interrupted runs to end, each within its last words' grace. A robot that
     * ignores interruption is logged and left behind, as {@link #release} leaves it.
     */
    void awaitInterrupted() {
        List<Run> interrupted;
        synchronized (lock) {
            interrupted = List.copyOf(runs.values());
        }
        long graceEnd = core.clock().nanoTime() + RobotRun.FINAL_WRITE.toNanos();
        try {
            for (Run run : interrupted) {
                long left = Math.max(0, graceEnd - core.clock().nanoTime());
                if (!run.await(Duration.ofNanos(left))) {
                    log.error(
                            "Robot {} ignores interruption; its writes are fenced once another node owns {}",
                            run.token().robotId(),
                            lease.slotId());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<Run> end() {
        synchronized (lock) {
            ended = true;
            return List.copyOf(runs.values());
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return lease.slotId() + "@" + lease.epoch() + (ended ? " (ended)" : begun ? "" : " (not begun)") + " runs "
                    + runs.values().stream()
                            .map(r -> r.token().robotId() + "/" + r.token().incarnation()
                                    + (r.isAlive() ? "" : " (ended)"))
                            .sorted()
                            .toList();
        }
    }

    /** Robots running under this lease right now. */
    public List<String> running() {
        synchronized (lock) {
            return runs.values().stream()
                    .filter(Run::isAlive)
                    .map(r -> r.token().robotId())
                    .sorted()
                    .toList();
        }
    }

    /** The robots it keeps, runs and seen ones, for the node's meters (the seen set read without the sync thread). */
    int remembered() {
        synchronized (lock) {
            return runs.size() + seen.size();
        }
    }
}
