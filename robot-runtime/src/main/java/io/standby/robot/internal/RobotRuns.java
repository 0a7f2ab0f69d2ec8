package io.standby.robot.internal;

import io.standby.robot.model.RobotView;
import io.standby.robot.runtime.RobotListener;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.EventFields;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts robots on this node, each in a {@link RobotRun} of its own thread, and keeps the registry of runs whose thread
 * is alive. A robot is started only when no earlier run of the same id is alive on this node, so a run that is still
 * unwinding never overlaps with the next one.
 */
public final class RobotRuns implements Run.Launcher {

    private static final Logger log = LoggerFactory.getLogger(RobotRuns.class);

    private final RobotStore store;
    private final RobotWrites writes;
    private final RunThreads threads;
    private final WriteSequence sequence;
    private final RuntimeConfig config;
    private final RobotTypes types;
    private final String node;
    private final Map<String, RobotRun> alive = new ConcurrentHashMap<>();

    private final MonotonicClock clock;
    private final Runnable runEnded;
    private final Consumer<Document> events;
    private final RobotListener listener;

    /**
     * Where runs read and write their robots: the store, the batched writes, and the sequence that orders a run's
     * writes.
     */
    public record Storage(RobotStore store, RobotWrites writes, WriteSequence sequence) {}

    /**
     * Who hears of the runs.
     *
     * @param runEnded told whenever a run ends: something may wait for it (its slot's owner re-reads then)
     * @param events where the runs' starts, failures and ends go as events ({@code EventLog#record}); must not block
     * @param listener told of checkpoints, fenced writes, restarts and failures, for metrics
     */
    public record Hooks(Runnable runEnded, Consumer<Document> events, RobotListener listener) {}

    /** Runs on virtual threads. */
    public RobotRuns(
            Storage storage, RuntimeConfig config, RobotTypes types, String node, MonotonicClock clock, Hooks hooks) {
        this(storage, config, types, node, clock, RunThreads.VIRTUAL, hooks);
    }

    /** @param threads where the runs' threads come from and how they wait (the simulation's own, on virtual time) */
    public RobotRuns(
            Storage storage,
            RuntimeConfig config,
            RobotTypes types,
            String node,
            MonotonicClock clock,
            RunThreads threads,
            Hooks hooks) {
        this.threads = threads;
        this.clock = clock;
        this.runEnded = hooks.runEnded();
        this.events = hooks.events();
        this.listener = hooks.listener();
        this.store = storage.store();
        this.writes = storage.writes();
        this.sequence = storage.sequence();
        this.config = config;
        this.types = types;
        this.node = node;
    }

    @Override
    public Run launch(RobotView robot, Lease lease) {
        RobotRun run = new RobotRun(robot, lease, this);
        alive.put(robot.id(), run);
        run.start();
        return run;
    }

    @Override
    public boolean aliveOnNode(String robotId) {
        RobotRun run = alive.get(robotId);
        return run != null && run.isAlive();
    }

    /** Records what happened to a run of a robot, with the run's slot, epoch and this node. */
    void event(RobotRun run, String type, Document details) {
        events.accept(new Document(EventFields.TYPE, type)
                .append(EventFields.SLOT, run.token().slotId())
                .append(EventFields.EPOCH, run.token().epoch())
                .append(EventFields.NODE, node)
                .append(EventFields.ROBOT, run.token().robotId())
                .append(EventFields.DETAIL, details.isEmpty() ? null : details));
    }

    /** Tells the listener; what it throws is logged, never the run's problem. */
    void tell(Consumer<RobotListener> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException e) {
            log.warn("Robot listener failed: {}", e.toString());
        }
    }

    void ended(RobotRun run) {
        alive.remove(run.token().robotId(), run);
        runEnded.run();
    }

    RobotStore store() {
        return store;
    }

    RobotWrites writes() {
        return writes;
    }

    RunThreads threads() {
        return threads;
    }

    WriteSequence sequence() {
        return sequence;
    }

    RuntimeConfig config() {
        return config;
    }

    RobotTypes types() {
        return types;
    }

    String node() {
        return node;
    }

    MonotonicClock clock() {
        return clock;
    }

    /** The runs alive on this node, by robot id, for the node's meters. */
    int alive() {
        return alive.size();
    }
}
