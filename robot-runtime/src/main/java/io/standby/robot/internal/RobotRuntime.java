package io.standby.robot.internal;

import io.standby.robot.runtime.RobotListener;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.Workload;
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.SuspendAwareClock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every robot of the slots this node owns. Register it as the {@link SlotListener} of the node's
 * {@link io.standby.slot.SlotNode}: when the node wins a slot, the runtime fences the slot's robots at the new epoch,
 * restores their context and starts them, most important first; when the node loses the slot, it interrupts them at
 * once; when the node stops gracefully, it lets them checkpoint first.
 *
 * <p>Between those events it re-reads its slots' robots every poll (and at once when a change stream reports a change,
 * where the database has them), and starts, stops, hands over or drops robots as the operator changed them. Started
 * once, closed once.
 */
public final class RobotRuntime implements SlotListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RobotRuntime.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    /** The robot types this node can run, for its registry document (so 'robot add' can check a type). */
    private final List<String> typeNames;

    private final RobotStore store;
    private final SlotRuns slots;
    private final RobotRuns runs;
    private final SyncLoop sync;
    private final WriteBatcher writes;
    private final EventLog events;
    /** Whether this runtime started its event log and closes it, or the node that shares it does. */
    private final boolean ownsEvents;

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private RobotRuntime(
            StandbyDatabase database,
            NodeId node,
            RuntimeConfig config,
            RobotTypes types,
            RobotListener listener,
            MonotonicClock clock,
            EventLog events) {
        this.typeNames = types.names();
        this.store = new MongoRobotStore(database);
        this.writes = new WriteBatcher(store, listener::batchSent);
        this.sync = new SyncLoop(database, config.poll(), clock);
        WriteSequence sequence = new WriteSequence();
        this.ownsEvents = events == null;
        this.events = ownsEvents ? new EventLog(database.database()) : events;
        this.runs = new RobotRuns(
                new RobotRuns.Storage(store, writes, sequence),
                config,
                types,
                node.toString(),
                clock,
                new RobotRuns.Hooks(sync::changed, this.events::record, listener));
        this.slots = new SlotRuns(
                new RuntimeCore(store, writes, sequence, node.toString(), runs, clock),
                config.stopTimeout(),
                SlotRuns.RESYNC,
                sync::slotsChanged,
                sync::wake);
    }

    /**
     * A runtime for the node {@code node}. Give it a database whose operation timeout suits loading and writing robots
     * (seconds), not the protocol's short one.
     */
    public static RobotRuntime create(StandbyDatabase database, NodeId node, RuntimeConfig config, RobotTypes types) {
        return create(database, node, config, types, RobotListener.NONE);
    }

    /** The same, telling {@code listener} of checkpoints, fenced writes, restarts, failures and write batches. */
    public static RobotRuntime create(
            StandbyDatabase database, NodeId node, RuntimeConfig config, RobotTypes types, RobotListener listener) {
        return new RobotRuntime(database, node, config, types, listener, SuspendAwareClock.ofSystem(), null);
    }

    /**
     * The same, on the node's one clock and its one event log, which the node starts and closes: a whole node reads
     * every local deadline on one clock and writes its history through one log.
     */
    public static RobotRuntime create(
            StandbyDatabase database,
            NodeId node,
            RuntimeConfig config,
            RobotTypes types,
            RobotListener listener,
            MonotonicClock clock,
            EventLog events) {
        return new RobotRuntime(
                database, node, config, types, listener, clock, Objects.requireNonNull(events, "events"));
    }

    /** Starts the sync loop. @throws IllegalStateException if started before or closed */
    public RobotRuntime start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("A robot runtime can be started only once");
        }
        try {
            store.ensureIndexes();
        } catch (RuntimeException e) {
            log.warn("Could not create the robots index (queries still work): {}", e.toString());
        }
        if (ownsEvents) {
            events.start();
        }
        sync.start(slots);
        return this;
    }

    @Override
    public void acquired(Lease lease) {
        slots.acquired(lease);
    }

    @Override
    public void releasing(Lease lease) {
        slots.release(lease);
    }

    @Override
    public void observed(Lease lease, SlotView slot) {
        slots.observed(lease, slot);
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        slots.lost(lease);
    }

    @Override
    public void paused(Lease lease) {
        slots.paused(lease);
    }

    @Override
    public void resumed(Lease lease) {
        slots.resumed(lease);
    }

    /** How many robots run on this node and how many of its slots' robots failed, for its registry document. */
    public Workload workload() {
        return slots.workload().withTypes(typeNames);
    }

    /**
     * The entries of the runtime's maps keyed by slots and robots, by name: what a soak watches for growth. From any
     * thread.
     */
    public Map<String, Integer> remembered() {
        Map<String, Integer> sizes = new TreeMap<>();
        slots.remembered(sizes);
        sizes.put("robot_runs", runs.alive());
        return sizes;
    }

    /** The robots running on this node, by slot. */
    public Map<String, List<String>> running() {
        return slots.running();
    }

    /**
     * Stops the sync loop and sends the writes still queued. Close the slot node first: that stops the robots and
     * releases their slots.
     */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.CLOSED) {
            return;
        }
        sync.close();
        writes.close();
        if (ownsEvents) {
            // After the last run ended: its last event is recorded too.
            events.close();
        }
    }
}
