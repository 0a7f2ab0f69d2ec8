package io.standby.node;

import com.mongodb.MongoClientSettings;
import io.standby.robot.internal.RobotRuntime;
import io.standby.robot.runtime.RobotListener;
import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeState;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotNodeBuilder;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.WatchLinkCounts;
import io.standby.slot.Workload;
import io.standby.slot.internal.ApiAccess;
import io.standby.slot.internal.EventLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens what a node runs, in the order its safety needs, and closes it in the reverse order. The address is bound
 * first, before the node connects or joins, because binding it is what proves that no earlier process with this
 * identity lives on this host ({@link NodeConfig#addressBound()}); it is closed after the last slot is released.
 */
final class NodeAssembly {

    private static final Logger log = LoggerFactory.getLogger(NodeAssembly.class);

    /** How long the first contact with the database may take (it includes connecting). */
    static final Duration FIRST_CONTACT = Duration.ofSeconds(5);

    /** What a started node runs, and the connections it opened (closed last). */
    record Parts(
            NodeConfig config,
            SlotNode slots,
            RobotRuntime robots,
            EventLog events,
            NodeEndpoint http,
            StandbyDatabase robotDatabase,
            List<AutoCloseable> connections)
            implements StartedNode {

        @Override
        public List<Lease> leases() {
            return slots.leases();
        }

        @Override
        public NodeState state() {
            return slots.state();
        }

        @Override
        public Optional<String> notReady() {
            return slots.notReady();
        }

        @Override
        public Map<String, List<String>> running() {
            return robots.running();
        }

        @Override
        public Workload workload() {
            return robots.workload();
        }

        @Override
        public Optional<NodeEndpoint> endpoint() {
            return Optional.ofNullable(http);
        }

        @Override
        public WatchLinkCounts watchLinks() {
            return slots.watchLinks();
        }

        @Override
        public Map<String, Integer> remembered() {
            Map<String, Integer> sizes = new TreeMap<>(slots.remembered());
            sizes.putAll(robots.remembered());
            return sizes;
        }

        /** The graceful stop, in its order. */
        void close() {
            // Closing the slot node asks the runtime to stop each slot's robots and waits for them; only then
            // is the slot released. So the runtime, and the connections both use, close only after it.
            slots.close();
            robots.close();
            // Both parts record into it: it closes after the last release and the last run's end are queued.
            events.close();
            // The identity is held until every slot is released.
            if (http != null) {
                http.close();
            }
            for (AutoCloseable connection : connections) {
                try {
                    connection.close();
                } catch (Exception e) {
                    log.debug("Closing a connection failed: {}", e.toString());
                }
            }
        }
    }

    private NodeAssembly() {}

    /**
     * Binds, connects, checks the database, starts the robot runtime, then the slot protocol, then tells the
     * extensions. Whatever was opened is closed again, last first, if a step fails.
     */
    static Parts open(NodeSettings settings) {
        NodeConfig config = settings.config();
        List<NodeHooks> hooks = settings.extensions().stream()
                .map(extension -> extension.open(config))
                .toList();
        Consumer<MongoClientSettings.Builder> clients = clientSettings(settings.clientSettings(), hooks);
        List<AutoCloseable> opened = new ArrayList<>();
        List<AutoCloseable> connections = new ArrayList<>();
        try {
            NodeEndpoint http = settings.endpoint()
                    ? NodeEndpoint.bind(config.node().ip(), config.node().port())
                    : null;
            if (http != null) {
                opened.add(http::close);
            }
            StandbyDatabase slotsDb = settings.slotDatabase();
            StandbyDatabase robotsDb = settings.robotDatabase();
            if (slotsDb == null) {
                checkDatabase(settings);
                slotsDb = StandbyDatabase.connect(
                        settings.uri(), settings.database(), config.timing().operationTimeout(), clients);
                connections.add(slotsDb);
                opened.add(slotsDb);
                robotsDb = StandbyDatabase.connect(
                        settings.uri(), settings.database(), StandbyNodeBuilder.ROBOT_OPERATION_TIMEOUT, clients);
                connections.add(robotsDb);
                opened.add(robotsDb);
            }
            List<String> types = settings.robotTypes().names();
            log.info("Robot types: {}", types.isEmpty() ? "none" : String.join(", ", types));
            // One history per node, written off the protocol's threads with the robots' longer timeout.
            EventLog events = new EventLog(robotsDb.database());
            opened.add(events);
            RobotListener robotListener = RobotListeners.of(
                    hooks.stream().map(NodeHooks::robotListener).toList());
            RobotRuntime robots = RobotRuntime.create(
                            robotsDb,
                            config.node(),
                            settings.runtime(),
                            settings.robotTypes(),
                            robotListener,
                            settings.clock(),
                            events)
                    .start();
            opened.add(robots);
            SlotNodeBuilder slotNode = ApiAccess.sharing(SlotNode.builder(slotsDb, config), settings.clock(), events)
                    .listener(slotListeners(settings.listener(), robots, hooks))
                    .workload(robots::workload)
                    .watchLinks(settings.watchLinks());
            if (settings.fastFailover()) {
                slotNode.withFastFailover();
            }
            SlotNode slots = slotNode.build().start();
            // An extension can still fail the start: then the slots it may have claimed are released first.
            opened.add(slots);
            // After the join: a node refused at the join records nothing.
            events.start();
            Parts parts = new Parts(config, slots, robots, events, http, robotsDb, connections);
            if (http != null) {
                NodeHealth.serve(http, parts);
            }
            for (NodeHooks hook : hooks) {
                hook.started(parts);
            }
            return parts;
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

    /** The extensions' listeners first, in their order, then the application's, then the robots. */
    private static SlotListener slotListeners(SlotListener application, RobotRuntime robots, List<NodeHooks> hooks) {
        List<SlotListener> listeners = new ArrayList<>();
        hooks.stream()
                .map(NodeHooks::slotListener)
                .filter(listener -> listener != SlotListener.NONE)
                .forEach(listeners::add);
        listeners.add(application);
        listeners.add(robots);
        return SlotListener.inOrder(listeners.toArray(SlotListener[]::new));
    }

    /** The application's client settings, then each extension's. */
    private static Consumer<MongoClientSettings.Builder> clientSettings(
            Consumer<MongoClientSettings.Builder> application, List<NodeHooks> hooks) {
        if (hooks.isEmpty()) {
            return application;
        }
        return builder -> {
            if (application != null) {
                application.accept(builder);
            }
            hooks.forEach(hook -> hook.configure(builder));
        };
    }

    /** The first contact gets longer than the protocol's timeout: it includes connecting. */
    private static void checkDatabase(NodeSettings settings) {
        try (StandbyDatabase db = StandbyDatabase.connect(
                settings.uri(), settings.database(), FIRST_CONTACT, settings.clientSettings())) {
            db.ping();
            if (new SlotTable(db).list().isEmpty()) {
                log.warn("There are no slots yet; this node waits for them");
            }
        }
    }
}
