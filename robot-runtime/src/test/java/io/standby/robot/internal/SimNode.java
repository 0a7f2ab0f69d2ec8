package io.standby.robot.internal;

import io.standby.robot.model.RobotView;
import io.standby.robot.runtime.RobotListener;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.FenceCheck;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTiming;
import io.standby.slot.internal.GoneOwners;
import io.standby.slot.internal.Load;
import io.standby.slot.internal.OwnerLinks;
import io.standby.slot.internal.ProtocolSetup;
import io.standby.slot.internal.SlotProtocol;
import io.standby.slot.internal.StandbyLinks;
import java.time.Duration;
import java.util.List;

/**
 * One node of the simulation: the real {@link SlotProtocol}, {@link SlotRuns} and {@link SlotRun} (with
 * {@link RobotDecision}), scheduled as SlotNode and SyncLoop schedule them, and the real robot runtime:
 * {@link RobotRuns} starting each {@link RobotRun} (with its {@link RunContext}, {@link RunStatus} and
 * {@link Supervisor}) and the {@link WriteBatcher}, on threads that the simulation runs one at a time
 * ({@link SimThreads}), all on a monotonic clock that drifts at its own rate. The robots are counters
 * ({@link SimRobot}). A node can be paused (its events and threads wait, its clock goes on), killed (everything of the
 * process is gone at once) and stopped gracefully (the protocol's release, waiting for its robots).
 */
final class SimNode {

    final Sim sim;
    final SimWorld world;
    final NodeId id;
    final int maxSlots;
    final SlotTiming timing;
    /** The clock's rate against the world's: within the drift bound, but for a while fast beyond it. */
    final double baseRate;

    double rate;
    /** The clock's reading when its rate last changed, and the world's time then. */
    private long clockBase;

    private long rateSince;
    private final long clockOffset;
    /** Restarts as a node's, scaled down: a crash-looping robot fails for good within a storm. */
    private static final RuntimeConfig RUNTIME = RuntimeConfig.defaults(SimWorld.TIMING.poll())
            .withRestarts(Duration.ofMillis(20), Duration.ofMillis(400), 4, Duration.ofSeconds(3));
    /** The most a timer fires late. */
    static final long LATE = 10 * Sim.MS;

    private static final RobotTypes TYPES = RobotTypes.of(SimRobot.factory());

    final SimRobotStore robotStore;
    private final SimSlotStore slotStore;
    private final MonotonicClock clock;
    private final long fenceCheck;

    // One process: replaced at every start.
    int generation;
    boolean up;
    private boolean stopping;
    long pausedUntil;
    /** Until when connects to this node's address are refused while its process may live (a REJECT rule). */
    long rejectingUntil;

    SlotProtocol protocol;
    /** This process's instance id, and its watch links' two sides (null without watch links). */
    String instance;

    OwnerLinks ownerLinks;
    StandbyLinks standbyLinks;
    private SlotRuns slots;
    WriteSequence sequence;
    SimThreads threads;
    private RobotRuns runs;
    private boolean syncScheduled;
    private boolean syncing;
    /** Whether a step of SlotNode's poll thread runs (its calls in flight), and the steps due meanwhile. */
    private boolean pollThreadBusy;

    private final java.util.ArrayDeque<Runnable> pollThreadWaiting = new java.util.ArrayDeque<>();

    SimNode(SimWorld world, NodeId id, int maxSlots, SlotTiming timing, double rate) {
        this.sim = world.sim;
        this.world = world;
        this.id = id;
        this.maxSlots = maxSlots;
        this.timing = timing;
        this.baseRate = rate;
        this.rate = rate;
        this.clockOffset = sim.between(0, 1_000_000 * Sim.MS);
        this.robotStore = new SimRobotStore(world.db);
        this.slotStore = new SimSlotStore(world.db);
        this.clockBase = clockOffset;
        this.clock = () -> clockBase + (long) ((sim.now() - rateSince) * this.rate);
        this.fenceCheck = FenceCheck.interval(timing, world.watchLinks ? world.watchLease : null)
                .toNanos();
    }

    String name() {
        return id.toString();
    }

    @Override
    public String toString() {
        return "node " + id.ip().substring(id.ip().lastIndexOf('.') + 1);
    }

    /** A new process with this identity on this host (a restart takes its slots back at once). */
    void start() {
        generation++;
        pollThreadBusy = false;
        pollThreadWaiting.clear();
        up = true;
        stopping = false;
        pausedUntil = 0;
        syncScheduled = false;
        sequence = new WriteSequence();
        threads = new SimThreads(this);
        WriteBatcher writes = new WriteBatcher(robotStore, size -> {}, threads);
        // A process that binds its address before it starts, as the node command does: the earlier one is gone.
        NodeConfig config = new NodeConfig(id, maxSlots, timing, id.port() + "-" + generation + "@simhost:1:1", true);
        instance = config.instance();
        int gen0 = generation;
        if (world.watchLinks) {
            ownerLinks = new OwnerLinks(clock, world.watchLease, () -> afterFor(gen0, 0, () -> protocol.renewAll()));
            // Where the real transport would listen; the simulated links find the process by its address.
            ownerLinks.port(id.port() + 1);
            standbyLinks = new StandbyLinks(clock, world.watchNet.connector(this));
        } else {
            ownerLinks = null;
            standbyLinks = null;
        }
        runs = new RobotRuns(
                new RobotRuns.Storage(robotStore, writes, sequence),
                RUNTIME,
                TYPES,
                name(),
                clock,
                threads,
                new RobotRuns.Hooks(this::runEnded, event -> {}, RobotListener.NONE));
        RuntimeCore core = new RuntimeCore(robotStore, writes, sequence, name(), new Launcher(runs), clock);
        slots = new SlotRuns(core, Duration.ofSeconds(2), SlotRuns.RESYNC, slotIds -> {}, () -> scheduleSync(0));
        SlotRuns runs = slots;
        ProtocolSetup setup = ProtocolSetup.of(slotStore, config, clock, new Listener(slots))
                .withSleeper(duration -> {})
                .withMembership(world.registry, runs::workload, Load.Gauge.IDLE)
                .withFastFailover(
                        world.fastFailover
                                // The two connects in one instant: a process is not restarted between them here.
                                ? new GoneOwners(
                                        (node, timeout) -> world.probe(node),
                                        duration -> {},
                                        clock,
                                        Duration.ofMillis(50),
                                        GoneOwners.GAP)
                                : GoneOwners.OFF);
        protocol = new SlotProtocol(ownerLinks == null ? setup : setup.withWatchLinks(ownerLinks, standbyLinks));
        sim.note(this + " starts (instance " + config.instance() + ")");
        int gen = generation;
        after(0, () -> join(gen));
    }

    /** As SlotNode starts: the join (the identity check of the slots held, the registry), then the timers. */
    private void join(int gen) {
        try {
            protocol.join();
        } catch (IllegalStateException e) {
            sim.note(this + " refused at its join: " + e.getMessage());
            exit();
            return;
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        // Each on a thread of its own in SlotNode, the poll started last: a slow first poll must not hold up
        // the renewals and fence checks of the slots it takes back.
        after(local(timing.heartbeat()), () -> renew(gen));
        after(local(fenceCheck), () -> checkFences(gen));
        if (world.fastFailover) {
            after(local(identityCheck()), () -> checkIdentity(gen));
        }
        if (ownerLinks != null) {
            after(local(ownerLinks.tickInterval()), () -> tickWatchers(gen));
        }
        scheduleSync(local(timing.poll()));
        after(0, () -> poll(gen));
    }

    /** As SlotNode pings its watchers: every tenth of the watch lease. */
    private void tickWatchers(int gen) {
        ownerLinks.tick();
        after(local(ownerLinks.tickInterval()) + late(), () -> tickWatchers(gen));
    }

    /** As SlotNode takes over by a dead watch link between polls: when its wait ends, on the poll's thread. */
    private void scheduleWatchedTakeover(int gen) {
        protocol.nextWatchedTakeover()
                .ifPresent(delay -> after(
                        local(delay) + late(),
                        () -> onPollThread(() -> {
                            if (stopping) {
                                return;
                            }
                            try {
                                protocol.takeWatched();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        })));
    }

    /**
     * Runs {@code step} as SlotNode's one poll thread would: never beside another step of that thread. A step whose
     * database calls are in flight lets the world run on (slow calls), and a step due meanwhile waits for it, as a task
     * of a single-thread executor waits for the one running.
     */
    private void onPollThread(Runnable step) {
        if (pollThreadBusy) {
            pollThreadWaiting.add(step);
            return;
        }
        pollThreadBusy = true;
        try {
            step.run();
        } finally {
            pollThreadBusy = false;
        }
        if (!pollThreadWaiting.isEmpty()) {
            Runnable next = pollThreadWaiting.removeFirst();
            after(0, () -> onPollThread(next));
        }
    }

    /** As SlotNode checks its own address: every half heartbeat, at least every 50 ms. */
    private long identityCheck() {
        return Math.max(50 * Sim.MS, timing.heartbeat().toNanos() / 2);
    }

    /** The node's address refuses its own connects: its slots are fenced; the node command then stops. */
    private void checkIdentity(int gen) {
        protocol.checkIdentity()
                .ifPresentOrElse(
                        reason -> {
                            sim.note(this + " lost its identity: " + reason);
                            world.checker.identityLosses++;
                            stopLater();
                        },
                        () -> after(local(identityCheck()) + late(), () -> checkIdentity(gen)));
    }

    /** A drained node, or one that lost its identity, stops as the node command does: gracefully. */
    private void stopLater() {
        after(Sim.MS, () -> {
            if (terminate()) {
                // A supervisor (systemd, Kubernetes) starts it again.
                world.restartLater(this);
            } else {
                stopLater();
            }
        });
    }

    /** The process exits now, having written nothing more. */
    private void exit() {
        exit(false);
    }

    /** The same; with {@code hostDown}, its peers see nothing more of its connections, not their end. */
    private void exit(boolean hostDown) {
        up = false;
        world.watchNet.processEnded(this, generation, hostDown);
        generation++;
        threads.kill();
    }

    /**
     * How late a timer fires: never early, a few milliseconds late (a busy machine, a collection). It also puts a
     * node's polls out of step with the lease, as the time a poll takes does.
     */
    private long late() {
        return sim.between(0, LATE);
    }

    /** Global nanoseconds for a duration of {@code nanos} on this node's clock. */
    private long local(long nanos) {
        return (long) (nanos / rate);
    }

    /** Global nanoseconds for a duration on this node's clock (its threads' waits too). */
    long local(Duration duration) {
        return (long) (duration.toNanos() / rate);
    }

    /** Runs {@code action} after {@code delay} as this process's event: never after it died, later if it is paused. */
    void after(long delay, Runnable action) {
        int gen = generation;
        sim.after(delay, () -> run(gen, action));
    }

    /** Runs {@code action} after {@code delay} as an event of process {@code gen}: never if that process died. */
    void afterFor(int gen, long delay, Runnable action) {
        sim.after(delay, () -> run(gen, action));
    }

    private void run(int gen, Runnable action) {
        if (gen != generation || !up) {
            return;
        }
        if (sim.now() < pausedUntil) {
            sim.at(pausedUntil, () -> run(gen, action));
            return;
        }
        SimNode before = world.db.caller;
        int beforeGen = world.db.callerGen;
        world.db.caller = this;
        world.db.callerGen = gen;
        try {
            action.run();
        } catch (SimDatabase.Unavailable e) {
            // A call of this process came back after it was killed: nothing more of it happens.
            if (gen == generation && up) {
                throw e;
            }
        } finally {
            world.db.caller = before;
            world.db.callerGen = beforeGen;
        }
    }

    private void poll(int gen) {
        onPollThread(() -> pollStep(gen));
    }

    private void pollStep(int gen) {
        if (stopping) {
            return;
        }
        try {
            protocol.poll();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        if (protocol.drained()) {
            sim.note(this + " drained: every slot is with a standby");
            world.checker.drained++;
            stopLater();
            return;
        }
        if (standbyLinks != null) {
            scheduleWatchedTakeover(gen);
        }
        after(local(timing.poll()) + late(), () -> poll(gen));
    }

    private void renew(int gen) {
        protocol.renewAll();
        after(local(timing.heartbeat()) + late(), () -> renew(gen));
    }

    private void checkFences(int gen) {
        protocol.checkFences();
        after(local(fenceCheck) + late(), () -> checkFences(gen));
    }

    private void scheduleSync(long delay) {
        if (!syncScheduled) {
            syncScheduled = true;
            int gen = generation;
            after(delay, () -> sync(gen));
        }
    }

    private void sync(int gen) {
        syncScheduled = false;
        if (syncing) {
            // The sync loop is one thread: a sync woken while one is in flight waits for it.
            scheduleSync(Sim.MS);
            return;
        }
        syncing = true;
        try {
            syncOnce();
        } finally {
            syncing = false;
        }
    }

    private void syncOnce() {
        try {
            slots.sync();
        } catch (RuntimeException e) {
            // SyncLoop logs it and tries again at the next poll.
            sim.note(this + " robot sync failed: " + e);
        }
        scheduleSync(local(timing.poll()));
    }

    void pause(long nanos) {
        pausedUntil = Math.max(pausedUntil, sim.now() + nanos);
        sim.note(this + " paused for " + nanos / Sim.MS + " ms");
    }

    /**
     * The clock runs at {@code newRate} from now on, monotonic all the same. Fast beyond the drift bound, a standby's
     * own wait ends early and only the server's clock (the claim's {@code $$NOW} conditions) keeps it from claiming too
     * soon; slow beyond it, an owner would fence itself late, which nothing can catch.
     */
    void rate(double newRate) {
        clockBase = clock.nanoTime();
        rateSince = sim.now();
        rate = newRate;
        sim.note(this + " clock runs at " + String.format("%.3f", newRate));
    }

    /** Connects to this node's address are refused for {@code nanos}, whether its process lives or not. */
    void reject(long nanos) {
        rejectingUntil = Math.max(rejectingUntil, sim.now() + nanos);
        sim.note(this + " refuses connects for " + nanos / Sim.MS + " ms (its process " + (up ? "lives" : "is down")
                + ")");
    }

    /** kill -9: the process and its robots stop this instant. */
    void kill() {
        boolean hostDown = world.watchLinks && sim.chance(0.3);
        sim.note(this + " killed" + (hostDown ? " with its host" : ""));
        exit(hostDown);
    }

    /**
     * SIGTERM: no more claims, every slot released after its robots stopped (the protocol's own releaseAll, whose
     * listener call waits for them). Returns false if another node's stop is under way.
     */
    boolean terminate() {
        if (sim.nested() || !up || sim.now() < pausedUntil) {
            return false;
        }
        sim.note(this + " stops gracefully");
        stopping = true;
        protocol.stopClaiming();
        protocol.releaseAll();
        protocol.leave();
        if (up) {
            // The process exits: whatever of it still runs stops here.
            exit();
        }
        sim.note(this + " stopped");
        return true;
    }

    /** Whether this process has a run of the robot alive: its code running, or its supervisor's backoff. */
    boolean runsRobot(String robotId) {
        return up && runs.aliveOnNode(robotId);
    }

    /** Up, and neither stopping nor draining: a node that takes slots. */
    boolean claiming() {
        return up && !stopping && !protocol.draining();
    }

    /** What the node's runtime holds, for a violation's report. */
    String describe() {
        return this + (up ? "" : " (down)") + ": " + slots;
    }

    private void runEnded() {
        // As RobotRuntime tells SyncLoop: something may have waited for this run.
        if (slots != null) {
            slots.changed();
        }
    }

    /** The leases this process holds that are valid right now. */
    List<Lease> validLeases() {
        if (!up) {
            return List.of();
        }
        return protocol.leases().stream().filter(Lease::isValid).toList();
    }

    private final class Listener implements SlotListener {
        private final SlotRuns slots;

        Listener(SlotRuns slots) {
            this.slots = slots;
        }

        @Override
        public void acquired(Lease lease) {
            sim.note(SimNode.this + " acquired " + lease.slotId() + "@" + lease.epoch());
            slots.acquired(lease);
        }

        @Override
        public void releasing(Lease lease) {
            slots.release(lease);
        }

        @Override
        public void observed(Lease lease, io.standby.slot.SlotView slot) {
            slots.observed(lease, slot);
        }

        @Override
        public void paused(Lease lease) {
            sim.note(SimNode.this + " paused " + lease.slotId() + "@" + lease.epoch());
            slots.paused(lease);
        }

        @Override
        public void resumed(Lease lease) {
            sim.note(SimNode.this + " resumed " + lease.slotId() + "@" + lease.epoch());
            slots.resumed(lease);
        }

        @Override
        public void lost(Lease lease, LossReason reason) {
            sim.note(SimNode.this + " lost " + lease.slotId() + "@" + lease.epoch() + ": " + reason);
            if (reason == LossReason.RELEASED) {
                world.checker.releasing(SimNode.this, lease);
            }
            slots.lost(lease);
        }
    }

    /** The node's RobotRuns, telling each run's thread what its robot needs to know. */
    private final class Launcher implements Run.Launcher {
        private final RobotRuns runs;

        Launcher(RobotRuns runs) {
            this.runs = runs;
        }

        @Override
        public Run launch(RobotView robot, Lease lease) {
            Run run = runs.launch(robot, lease);
            threads.lastStarted.attachment = new SimRobot.Launch(SimNode.this, run.token(), lease);
            return run;
        }

        @Override
        public boolean aliveOnNode(String robotId) {
            return runs.aliveOnNode(robotId);
        }
    }
}
