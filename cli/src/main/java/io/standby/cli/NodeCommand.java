package io.standby.cli;

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

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code standby node}: takes part in the slot protocol until SIGTERM or Ctrl-C, then releases its slots. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Runs a node until SIGTERM or Ctrl-C, then releases its slots.",
            "Binds ip:port for its HTTP endpoint (/health), claims up to --max-slots slots, renews them every",
            "--heartbeat, and takes over slots whose --lease ran out by the database's clock."})
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
            description = {"How long a slot stays owned without renewal, by the database's clock; more than twice",
                "--heartbeat (default: ${DEFAULT-VALUE}). Above ~15s it rides through a replica-set election."})
    Duration lease;

    @Option(names = "--poll", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "How often a node looks for claimable slots; less than --lease (default: ${DEFAULT-VALUE}).")
    Duration poll;

    @Override
    public Integer call() throws Exception {
        // Every check that needs no network comes first, so bad input changes nothing.
        NodeId node = new NodeId(ip, port);
        SlotTiming timing = SlotTiming.of(heartbeat, lease, poll);
        NodeConfig config = NodeConfig.of(node, maxSlots, timing);
        StandbyCli root = (StandbyCli) spec.root().userObject();

        try (NodeHttp http = NodeHttp.bind(ip, port);
             StandbyDatabase db = connect(root, timing)) {
            if (new SlotTable(db).list().isEmpty()) {
                log.warn("There are no slots yet; this node waits for them (create them with: standby slots init --count N)");
            }
            SlotNode slots = SlotNode.create(db, config, new LoggingListener());
            http.serve(config, slots::leases);
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                log.info("Stopping: releasing slots");
                slots.close();
                stopped.countDown();
            }, "standby-stop"));
            slots.start();
            stopped.await();
            return 0;
        }
    }

    private static StandbyDatabase connect(StandbyCli root, SlotTiming timing) {
        StandbyDatabase db = StandbyDatabase.connect(root.mongo, root.db, timing.operationTimeout(), null);
        try {
            db.ping();
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** The node's own story in its log; the robot runtime adds its own listener later. */
    private static final class LoggingListener implements SlotListener {
        @Override
        public void acquired(Lease lease) {
            log.info("Running {} (epoch {})", lease.slotId(), lease.epoch());
        }

        @Override
        public void lost(Lease lease, LossReason reason) {
            log.info("Stopped {} (epoch {}): {}", lease.slotId(), lease.epoch(), reason.name().toLowerCase());
        }
    }
}
