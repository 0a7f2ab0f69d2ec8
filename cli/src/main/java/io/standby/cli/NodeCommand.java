package io.standby.cli;

import io.standby.robot.RobotRuntime;
import io.standby.robot.RobotTypes;
import io.standby.robot.RuntimeConfig;
import io.standby.slot.Durations;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code standby node}: takes part in the slot protocol and runs the robots of the slots it owns until
 * SIGTERM or Ctrl-C; then lets its robots checkpoint and releases its slots.
 */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Runs a node until SIGTERM or Ctrl-C, then lets its robots checkpoint and releases its slots.",
            "Binds ip:port for its HTTP endpoint (/health), claims up to --max-slots slots, renews them every "
                    + "--heartbeat, takes over slots whose --lease ran out by the database's clock, and runs the robots "
                    + "of the slots it owns."})
final class NodeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(NodeCommand.class);

    @Spec
    CommandSpec spec;

    @Option(names = "--ip", required = true, paramLabel = "IP", description = "This node's IP address (a literal address of this machine).")
    String ip;

    @Option(names = "--port", required = true, paramLabel = "PORT", description = "This node's port, 1-65535; ip:port is the node's identity.")
    int port;

    @Option(names = "--max-slots", paramLabel = "K", defaultValue = "1",
            description = "Most slots this node owns at once (default: ${DEFAULT-VALUE}).")
    int maxSlots;

    @Option(names = "--heartbeat", paramLabel = "DURATION", defaultValue = "2s", converter = DurationConverter.class,
            description = "How often owned slots are renewed (default: ${DEFAULT-VALUE}).")
    Duration heartbeat;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
            description = "How long a slot stays owned without renewal, by the database's clock; more than twice "
                    + "--heartbeat (default: ${DEFAULT-VALUE}). Above ~15s it rides through a replica-set election.")
    Duration lease;

    @Option(names = "--poll", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "How often a node looks for claimable slots; less than --lease (default: ${DEFAULT-VALUE}).")
    Duration poll;

    @Option(names = "--plugins", paramLabel = "DIR",
            description = "A directory of jars with more robot types (listed in META-INF/services/io.standby.robot.RobotFactory); the built-in types are always there.")
    Path plugins;

    @Option(names = "--stop-timeout", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "On SIGTERM, how long robots get for a final checkpoint before they are interrupted (default: ${DEFAULT-VALUE}).")
    Duration stopTimeout;

    /**
     * The robots' own connection gets seconds per operation: loading a slot's robots and sending
     * checkpoints may take longer than a renewal, which keeps the protocol's short timeout.
     */
    static final Duration ROBOT_OPERATION_TIMEOUT = Duration.ofSeconds(10);

    @Override
    public Integer call() throws Exception {
        // Every check that needs no network comes first, so bad input changes nothing.
        NodeId node = new NodeId(ip, port);
        SlotTiming timing = Flags.checked(() -> SlotTiming.of(heartbeat, lease, poll));
        NodeConfig config = Flags.checked(() -> NodeConfig.of(node, maxSlots, timing));
        if (stopTimeout.isZero()) {
            throw new IllegalArgumentException("invalid --stop-timeout " + Durations.format(stopTimeout) + ": must be more than 0");
        }
        RuntimeConfig robotConfig = Flags.checked(() -> RuntimeConfig.defaults(poll).withStopTimeout(stopTimeout));
        RobotTypes types = Flags.checked(() -> RobotTypes.discover(plugins));
        StandbyCli root = (StandbyCli) spec.root().userObject();

        try (NodeHttp http = NodeHttp.bind(ip, port)) {
            checkDatabase(root);
            try (StandbyDatabase db = StandbyDatabase.connect(root.mongo, root.db, timing.operationTimeout(), null);
                 StandbyDatabase robotDb = StandbyDatabase.connect(root.mongo, root.db, ROBOT_OPERATION_TIMEOUT, null)) {
                return run(http, db, robotDb, config, robotConfig, types);
            }
        }
    }

    private Integer run(NodeHttp http, StandbyDatabase db, StandbyDatabase robotDb, NodeConfig config,
                        RuntimeConfig robotConfig, RobotTypes types) throws InterruptedException {
        log.info("Robot types: {}{}", types.names().isEmpty() ? "none" : String.join(", ", types.names()),
                plugins == null ? " (built in)" : " (built in and from " + plugins.toAbsolutePath().normalize() + ")");
        RobotRuntime robots = RobotRuntime.create(robotDb, config.node(), robotConfig, types);
        SlotNode slots = SlotNode.create(db, config, new InOrder(new LoggingListener(stopTimeout), robots));
        http.serve(config, slots::leases, robots::running);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("Stopping: letting robots checkpoint, then releasing slots");
            // Closing the slot node calls releasing() for every slot, which waits for the slot's robots
            // to checkpoint and stop; only then is the slot released. So the robots' runtime, and the
            // connections both use, may close only after it.
            slots.close();
            robots.close();
            robotDb.close();
            db.close();
            stopped.countDown();
        }, "standby-stop"));
        robots.start();
        slots.start();
        stopped.await();
        return 0;
    }

    /**
     * Checks that the database answers, with the admin commands' timeout: the first operation on a
     * connection includes connecting, which on a busy machine can take longer than the protocol's
     * operation timeout (three quarters of a heartbeat). The protocol itself retries every poll.
     */
    private static void checkDatabase(StandbyCli root) {
        try (StandbyDatabase db = root.connect(StandbyCli.ADMIN_TIMEOUT)) {
            if (new SlotTable(db).list().isEmpty()) {
                log.warn("There are no slots yet; this node waits for them (create them with: standby slots init --count N)");
            }
        }
    }

    /** The node's own story in its log. */
    private static final class LoggingListener implements SlotListener {
        private final Duration stopTimeout;

        LoggingListener(Duration stopTimeout) {
            this.stopTimeout = stopTimeout;
        }

        @Override
        public void acquired(Lease lease) {
            log.info("Running {} (epoch {})", lease.slotId(), lease.epoch());
        }

        @Override
        public void releasing(Lease lease) {
            log.info("Releasing {} (epoch {}): its robots get up to {} to checkpoint", lease.slotId(), lease.epoch(),
                    Durations.format(stopTimeout));
        }

        @Override
        public void lost(Lease lease, LossReason reason) {
            log.info("Stopped {} (epoch {}): {}", lease.slotId(), lease.epoch(), reason.name().toLowerCase());
        }
    }

    /**
     * Two listeners, called one after the other. The second is called even if the first throws: the
     * robot runtime must hear of every loss, whatever happens to a log line.
     */
    private record InOrder(SlotListener first, SlotListener second) implements SlotListener {
        @Override
        public void acquired(Lease lease) {
            try {
                first.acquired(lease);
            } finally {
                second.acquired(lease);
            }
        }

        @Override
        public void releasing(Lease lease) {
            try {
                first.releasing(lease);
            } finally {
                second.releasing(lease);
            }
        }

        @Override
        public void lost(Lease lease, LossReason reason) {
            try {
                first.lost(lease, reason);
            } finally {
                second.lost(lease, reason);
            }
        }
    }
}
