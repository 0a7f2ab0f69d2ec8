package io.standby.node;

import com.mongodb.MongoClientSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.standby.robot.RobotFactory;
import io.standby.robot.admin.ClusterStatus;
import io.standby.robot.internal.RobotRuntime;
import io.standby.robot.runtime.RobotListener;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.SuspendAwareClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A Standby node inside an application's own process: it takes part in the slot protocol and runs the
 * robots of the slots it owns, until closed.
 *
 * <pre>{@code
 * try (StandbyNode node = StandbyNode.builder().mongo(uri).node("10.0.0.5", 7700).start()) {
 *     // the application's own work; the node's robots run meanwhile
 * }
 * }</pre>
 *
 * <p>{@link #close()} is the graceful stop: no more claims; every robot checkpoints and returns (up to
 * the stop timeout); every slot is released so that a standby takes it at its next poll. The node's
 * identity is its ip:port, which it binds for its HTTP endpoint: {@code /health} (alive), {@code /ready}
 * (taking part in the protocol), {@code /status} (its slots and robots, and the cluster as it reads it),
 * the dashboard at {@code /}, and {@code /metrics} given a Prometheus registry. Binding proves that
 * no other live process on this host has the identity, which is what lets a restarted node take its
 * own slots back at once. An application that listens on that address itself says so with
 * {@link Builder#endpoint(boolean) endpoint(false)}, and with {@link Builder#addressBound(boolean)} if it
 * has bound it before starting the node.
 */
public final class StandbyNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StandbyNode.class);

    /** Curator's lifecycle: a node starts once and closes once; a closed node never starts. */
    private enum Phase { LATENT, STARTED, CLOSED }

    /** What a started node runs, and the connections it opened (closed last). */
    private record Parts(SlotNode slots, RobotRuntime robots, EventLog events, NodeEndpoint endpoint,
                         List<AutoCloseable> databases) {
    }

    private final NodeConfig config;
    private final Supplier<Parts> opener;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.LATENT);
    private volatile Parts parts;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final CompletableFuture<String> identityLost = new CompletableFuture<>();

    private StandbyNode(NodeConfig config, Supplier<Parts> opener) {
        this.config = config;
        this.opener = opener;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds the address, connects, checks the database (reachable, MongoDB 4.2 or newer), starts the
     * robot runtime, then the slot protocol. Once only.
     *
     * @throws IllegalStateException if started before or closed; if the address is taken, the database
     *                               cannot be reached or is too old, or this identity holds a live lease of
     *                               a process the node cannot prove gone (on another host, or on this one
     *                               without a bound address); everything opened so far is closed again
     */
    public synchronized StandbyNode start() {
        if (!phase.compareAndSet(Phase.LATENT, Phase.STARTED)) {
            throw new IllegalStateException("node " + config.node() + " cannot be started more than once (it is "
                    + phase.get().name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
        Parts started;
        try {
            started = opener.get();
        } catch (RuntimeException e) {
            phase.set(Phase.CLOSED);
            throw e;
        }
        parts = started;
        started.slots().drained().whenComplete((done, failed) -> complete(drained, done, failed));
        started.slots().identityLost().whenComplete((reason, failed) -> complete(identityLost, reason, failed));
        return this;
    }

    private static <T> void complete(CompletableFuture<T> future, T value, Throwable failed) {
        if (failed != null) {
            future.completeExceptionally(failed);
        } else {
            future.complete(value);
        }
    }

    /** The node's identity, timing and instance id. */
    public NodeConfig config() {
        return config;
    }

    /** The leases this node holds right now; none before it starts. */
    public List<Lease> leases() {
        Parts now = parts;
        return now == null ? List.of() : now.slots().leases();
    }

    /** What the node does now: drains, owns slots, or stands by (also before it starts). */
    public NodeState state() {
        Parts now = parts;
        return now == null ? NodeState.STANDBY : now.slots().state();
    }

    /**
     * Empty while the node takes part in the protocol: started, not closed, and its last read of the slots
     * succeeded lately (so an unreachable database shows); otherwise why not, in a few words.
     */
    public Optional<String> notReady() {
        Parts now = parts;
        if (phase.get() == Phase.CLOSED) {
            return Optional.of("stopped");
        }
        return now == null ? Optional.of("not started") : now.slots().notReady();
    }

    /**
     * Completes when an operator's drain request has handed every slot of this node to standbys; the
     * application then closes the node (the {@code standby node} command exits).
     */
    public CompletableFuture<Void> drained() {
        return drained;
    }

    /**
     * Completes, with the reason, if this node's address stops accepting connects while it runs (with
     * fast failover): it has fenced every lease and claims nothing more, since other nodes would take it
     * for dead. The application should close it, and find out what closed its listener.
     */
    public CompletableFuture<String> identityLost() {
        return identityLost;
    }

    /** The robots running on this node, by slot; none before it starts. */
    public Map<String, List<String>> running() {
        Parts now = parts;
        return now == null ? Map.of() : now.robots().running();
    }

    /**
     * Graceful stop: every robot checkpoints and returns (interrupted after the stop timeout), then every
     * slot is released; then the connections it opened close. Idempotent; a node closed before it started
     * never starts.
     */
    @Override
    public synchronized void close() {
        // Synchronized with start(): a close during a start waits for it, then stops what it opened.
        Phase before = phase.getAndSet(Phase.CLOSED);
        Parts now = parts;
        if (before != Phase.STARTED || now == null) {
            return;
        }
        long began = System.nanoTime();
        // Closing the slot node asks the runtime to stop each slot's robots and waits for them; only then
        // is the slot released. So the runtime, and the connections both use, close only after it.
        now.slots().close();
        now.robots().close();
        // Both parts record into it: it closes after the last release and the last run's end are queued.
        now.events().close();
        if (now.endpoint() != null) {
            now.endpoint().close();
        }
        for (AutoCloseable database : now.databases()) {
            try {
                database.close();
            } catch (Exception e) {
                log.debug("Closing a connection failed: {}", e.toString());
            }
        }
        log.info("Node {} closed: robots stopped, slots released, connections closed ({} ms)", config.node(),
                (System.nanoTime() - began) / 1_000_000);
    }

    /**
     * How to start a node. Every setting has a default except the identity ({@link #node}); everything is
     * checked in {@link #start()} before anything is bound or connected.
     */
    public static final class Builder {

        /** How long the first contact with the database may take (it includes connecting). */
        static final Duration FIRST_CONTACT = Duration.ofSeconds(5);
        /**
         * The robots' operations get seconds: loading a slot's robots and sending checkpoints may take longer
         * than a renewal, which keeps the protocol's short timeout.
         */
        public static final Duration ROBOT_OPERATION_TIMEOUT = Duration.ofSeconds(10);

        private String uri = StandbyDatabase.DEFAULT_URI;
        private String database = StandbyDatabase.DEFAULT_NAME;
        private Consumer<MongoClientSettings.Builder> clientSettings;
        private StandbyDatabase slotDatabase;
        private StandbyDatabase robotDatabase;
        private String ip;
        private int port;
        private int maxSlots = NodeConfig.DEFAULT_MAX_SLOTS;
        private SlotTiming timing = SlotTiming.defaults();
        private Duration stopTimeout = RuntimeConfig.DEFAULT_STOP_TIMEOUT;
        private Duration restartBackoff = RuntimeConfig.DEFAULT_RESTART_BACKOFF;
        private Duration maxRestartBackoff = RuntimeConfig.DEFAULT_MAX_RESTART_BACKOFF;
        private int failureLimit = RuntimeConfig.DEFAULT_FAILURE_LIMIT;
        private Duration failureWindow = RuntimeConfig.DEFAULT_FAILURE_WINDOW;
        private RobotTypes types;
        private final List<RobotFactory> factories = new ArrayList<>();
        private SlotListener listener = SlotListener.NONE;
        private boolean endpoint = true;
        private boolean addressBound;
        private boolean fastFailover = true;
        private MeterRegistry meterRegistry;
        private MonotonicClock clock = SuspendAwareClock.ofSystem();

        private Builder() {
        }

        /** A copy, so that a built node keeps the settings it was built with. */
        private Builder(Builder other) {
            uri = other.uri;
            database = other.database;
            clientSettings = other.clientSettings;
            slotDatabase = other.slotDatabase;
            robotDatabase = other.robotDatabase;
            ip = other.ip;
            port = other.port;
            maxSlots = other.maxSlots;
            timing = other.timing;
            stopTimeout = other.stopTimeout;
            restartBackoff = other.restartBackoff;
            maxRestartBackoff = other.maxRestartBackoff;
            failureLimit = other.failureLimit;
            failureWindow = other.failureWindow;
            types = other.types;
            factories.addAll(other.factories);
            listener = other.listener;
            endpoint = other.endpoint;
            addressBound = other.addressBound;
            fastFailover = other.fastFailover;
            meterRegistry = other.meterRegistry;
            clock = other.clock;
        }

        /** The MongoDB URI (default {@value StandbyDatabase#DEFAULT_URI}). */
        public Builder mongo(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /** The database that holds the slots and robots (default {@value StandbyDatabase#DEFAULT_NAME}). */
        public Builder database(String name) {
            this.database = Objects.requireNonNull(name, "name");
            return this;
        }

        /** More settings for the node's MongoDB clients, for example a command listener. */
        public Builder clientSettings(Consumer<MongoClientSettings.Builder> settings) {
            this.clientSettings = settings;
            return this;
        }

        /**
         * Connections the caller opened and closes, instead of {@link #mongo}: one for the slot protocol,
         * whose operation timeout must be {@link SlotTiming#operationTimeout()}, one for the robots
         * (seconds, see {@link #ROBOT_OPERATION_TIMEOUT}).
         */
        public Builder databases(StandbyDatabase slots, StandbyDatabase robots) {
            this.slotDatabase = Objects.requireNonNull(slots, "slots");
            this.robotDatabase = Objects.requireNonNull(robots, "robots");
            return this;
        }

        /** The node's identity: a literal IP address of this machine and a port, 1-65535. Required. */
        public Builder node(String ip, int port) {
            this.ip = ip;
            this.port = port;
            return this;
        }

        /** The most slots this node owns at once (default {@value NodeConfig#DEFAULT_MAX_SLOTS}). */
        public Builder maxSlots(int maxSlots) {
            this.maxSlots = maxSlots;
            return this;
        }

        /** Heartbeat, lease and poll (default 2 s, 5 s, 1 s; see {@link SlotTiming} for the rules). */
        public Builder timing(SlotTiming timing) {
            this.timing = Objects.requireNonNull(timing, "timing");
            return this;
        }

        /** How long robots get for a final checkpoint on close before they are interrupted (default 10 s). */
        public Builder stopTimeout(Duration stopTimeout) {
            this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
            return this;
        }

        /**
         * How a robot that throws is restarted: after {@code backoff}, doubling up to {@code maxBackoff};
         * the {@code failureLimit}-th failure within {@code failureWindow} marks it FAILED (default 1 s,
         * 1 min, 5, 5 min).
         */
        public Builder restarts(Duration backoff, Duration maxBackoff, int failureLimit, Duration failureWindow) {
            this.restartBackoff = Objects.requireNonNull(backoff, "backoff");
            this.maxRestartBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
            this.failureLimit = failureLimit;
            this.failureWindow = Objects.requireNonNull(failureWindow, "failureWindow");
            return this;
        }

        /**
         * The robot types this node runs. Default: the factories on the class path
         * ({@link RobotTypes#builtIn()}), plus any added with {@link #robots}.
         */
        public Builder robotTypes(RobotTypes types) {
            this.types = Objects.requireNonNull(types, "types");
            return this;
        }

        /** Robot types added to the others, e.g. {@code robots(new Greeter.Factory())}. */
        public Builder robots(RobotFactory... factories) {
            this.factories.addAll(List.of(factories));
            return this;
        }

        /**
         * Told of every acquired, releasing and lost slot, before the robots are: for logs or metrics. It
         * must return quickly, and cannot keep the robots from hearing of a loss.
         */
        public Builder listener(SlotListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Where the node's meters go ({@link StandbyMeters}): its slots, claims, renewals, losses, takeover
         * gaps, robots, checkpoints, fenced writes, write batches, and every database command of the
         * connections it opens itself (not of those given to {@link #databases}). Default none: then the
         * node measures nothing and needs no Micrometer on its class path. Given a Prometheus registry,
         * the node's endpoint also serves {@code /metrics}.
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Whether to take a slot over before its lease runs out when its owner's process is found gone
         * (default true): the owner's heartbeat is late by half a heartbeat and its address, which accepted
         * this node's connects before, refuses two connects in a row. A crash then costs about a heartbeat
         * and a half plus a poll instead of the whole lease, so a long lease can ride through database
         * elections without slowing crash takeovers. The node also checks its own address every half
         * heartbeat and fences every lease at once if it refuses (see {@link #identityLost()}).
         *
         * <p>It relies on the node's ip:port being the address other nodes reach it at, held by a
         * listener for the node's whole life. A refusal can be wrong (a firewall REJECT rule, a moved ip, a
         * closed listener): the owner therefore writes its late mark into its slots and pauses its robots
         * before it is that late, so a wrong refusal costs it its slots, never a second runner. Turn it off
         * to always wait out the lease: the node then writes no late mark, never pauses at one, and is never
         * taken over early.
         */
        public Builder fastFailover(boolean fastFailover) {
            this.fastFailover = fastFailover;
            return this;
        }

        /**
         * The node's one monotonic clock, on which the slot protocol, the robots' runs, their supervisor and
         * the change watcher read every local deadline (the database's clock still judges lease expiry).
         * Default: {@link SuspendAwareClock#ofSystem()}, the JVM's monotonic clock moved forward by any time the
         * machine was suspended. Tests pass one they can tick.
         */
        public Builder clock(MonotonicClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Whether the node binds its ip:port for its own HTTP endpoint (default true). Pass false when the
         * application listens on that address itself. Then nothing proves that an earlier process with this
         * ip:port on this host is gone, unless the application bound it before {@link #start()} (see
         * {@link #addressBound}): the node waits out the leases such a process left, and refuses to start
         * while one of them is live, since the process may still run their robots.
         */
        public Builder endpoint(boolean endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        /**
         * With {@link #endpoint(boolean) endpoint(false)}: whether the application has bound the node's
         * ip:port itself before {@link #start()}, and holds it until the node is closed (default false). That
         * proves the earlier processes with this identity on this host gone, so the node takes their slots
         * back at once, as it does when it binds its own endpoint. An application that binds later gets no
         * such proof: a restart after a crash waits out the lease.
         */
        public Builder addressBound(boolean addressBound) {
            this.addressBound = addressBound;
            return this;
        }

        /**
         * Checks every setting, then starts the node: {@code build().start()}.
         *
         * @throws IllegalArgumentException naming the bad setting; nothing was bound or connected
         * @throws IllegalStateException    as {@link StandbyNode#start()}
         */
        public StandbyNode start() {
            return build().start();
        }

        /**
         * Checks every setting and returns the node, not started: an application that starts and stops it
         * with its own lifecycle (a Spring {@code SmartLifecycle}, say) calls {@link StandbyNode#start()}
         * later. Changes to this builder afterwards do not reach the node.
         *
         * @throws IllegalArgumentException naming the bad setting
         */
        public StandbyNode build() {
            if (ip == null) {
                throw new IllegalArgumentException("the node's identity (ip and port) is required");
            }
            // The endpoint is bound at the start before the node runs, or the start fails: either way a proof.
            NodeConfig config = NodeConfig.of(new NodeId(ip, port), maxSlots, timing).withAddressBound(endpoint || addressBound);
            RuntimeConfig runtimeConfig = new RuntimeConfig(timing.poll(), stopTimeout, restartBackoff, maxRestartBackoff,
                    failureLimit, failureWindow);
            RobotTypes robotTypes = (types != null ? types : RobotTypes.builtIn()).with(factories);
            Builder settings = new Builder(this);
            return new StandbyNode(config, () -> settings.open(config, runtimeConfig, robotTypes));
        }

        private Parts open(NodeConfig config, RuntimeConfig runtimeConfig, RobotTypes robotTypes) {
            // What is opened here is closed again, last first, if a later step fails.
            List<AutoCloseable> opened = new ArrayList<>();
            List<AutoCloseable> connections = new ArrayList<>();
            NodeMetrics metrics = meterRegistry == null ? null : new NodeMetrics(meterRegistry);
            Consumer<MongoClientSettings.Builder> settings = metrics == null ? clientSettings : metrics.instrument(clientSettings);
            try {
                NodeEndpoint http = endpoint ? NodeEndpoint.bind(ip, port) : null;
                if (http != null) {
                    opened.add(http);
                }
                StandbyDatabase slotsDb = slotDatabase;
                StandbyDatabase robotsDb = robotDatabase;
                if (slotsDb == null) {
                    checkDatabase();
                    slotsDb = StandbyDatabase.connect(uri, database, timing.operationTimeout(), settings);
                    connections.add(slotsDb);
                    opened.add(slotsDb);
                    robotsDb = StandbyDatabase.connect(uri, database, ROBOT_OPERATION_TIMEOUT, settings);
                    connections.add(robotsDb);
                    opened.add(robotsDb);
                }
                log.info("Robot types: {}", robotTypes.names().isEmpty() ? "none" : String.join(", ", robotTypes.names()));
                // One history per node, written off the protocol's threads with the robots' longer timeout.
                EventLog events = new EventLog(robotsDb.database());
                opened.add(events);
                RobotRuntime robots = RobotRuntime.create(robotsDb, config.node(), runtimeConfig, robotTypes,
                        metrics == null ? RobotListener.NONE : metrics, clock, events).start();
                opened.add(robots);
                SlotListener listeners = SlotListener.inOrder(listener, robots);
                if (metrics != null) {
                    metrics.robots(robots::workload);
                    listeners = SlotListener.inOrder(metrics, listeners);
                }
                SlotNode slots = SlotNode.create(slotsDb, config, listeners, robots::workload, fastFailover, clock, events).start();
                // After the join: a node refused at the join records nothing.
                events.start();
                if (http != null) {
                    StandbyDatabase viewDb = robotsDb;
                    new NodeStatus(config, slots, robots, new ClusterView(() -> ClusterStatus.read(viewDb, ClusterView.EVENTS, ClusterView.ROBOTS)))
                            .serve(http, metrics == null ? Optional.empty() : PrometheusText.of(meterRegistry));
                }
                return new Parts(slots, robots, events, http, connections);
            } catch (RuntimeException e) {
                for (AutoCloseable resource : opened.reversed()) {
                    try {
                        resource.close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }

        /** The first contact gets longer than the protocol's timeout: it includes connecting. */
        private void checkDatabase() {
            try (StandbyDatabase db = StandbyDatabase.connect(uri, database, FIRST_CONTACT, clientSettings)) {
                db.ping();
                if (new SlotTable(db).list().isEmpty()) {
                    log.warn("There are no slots yet; this node waits for them");
                }
            }
        }
    }

}
