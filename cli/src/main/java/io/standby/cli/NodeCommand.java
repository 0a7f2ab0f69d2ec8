package io.standby.cli;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.standby.node.StandbyNode;
import io.standby.node.StandbyNodeBuilder;
import io.standby.node.web.NodeWeb;
import io.standby.node.web.StandbyMetrics;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.Durations;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.NodeId;
import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code standby node}: takes part in the slot protocol and runs the robots of the slots it owns until SIGTERM or
 * Ctrl-C; then lets its robots checkpoint and releases its slots.
 */
@Command(
        name = "node",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby node --ip 127.0.0.1 --port 7701",
            "  standby node --ip 10.0.0.5 --port 7700 --max-slots 4",
            "  standby node --ip 10.0.0.5 --port 7700 --heartbeat 3s --lease 20s",
            "  standby node --ip 10.0.0.5 --port 7700 --plugins ./plugins",
            "  standby node --config /etc/standby/node.properties"
        },
        subcommands = NodeCommand.Drain.class,
        description = {
            "Runs a node until SIGTERM or Ctrl-C, then lets its robots checkpoint and releases its slots.",
            "Binds ip:port for its HTTP endpoint (/health, /ready, /status, /metrics, and the dashboard at /), claims "
                    + "up to --max-slots slots, renews them every --heartbeat, takes over slots whose --lease ran "
                    + "out by the "
                    + "database's clock, whose watch link to this node died (--watch-links) or whose owner's "
                    + "process is "
                    + "gone (--fast-failover), and runs the robots of the slots it owns. Exits 1 if its own address "
                    + "stops accepting connects while it runs. On SIGTERM or Ctrl-C "
                    + "it exits 0 once the database shows its slots released, 1 if it could not release them.",
            "For containers, every setting below that names a STANDBY_* variable can come from the environment. "
                    + "An option on the command line wins over a --config file, which wins over the variable, which "
                    + "wins "
                    + "over the default."
        })
final class NodeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(NodeCommand.class);

    @Spec
    CommandSpec spec;

    // Required, but checked here rather than by the parser: 'standby node drain' must parse without them.
    @Option(
            names = "--ip",
            paramLabel = "IP",
            defaultValue = "${env:STANDBY_IP}",
            description = "This node's IP address (a literal address of this machine). Required (env STANDBY_IP).")
    String ip;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "${env:STANDBY_PORT}",
            description = "This node's port, 1-65535; ip:port is the node's identity. Required (env STANDBY_PORT).")
    Integer port;

    @Option(
            names = "--max-slots",
            paramLabel = "K",
            defaultValue = "${env:STANDBY_MAX_SLOTS:-1}",
            description = "Most slots this node owns at once (env STANDBY_MAX_SLOTS; default: 1).")
    int maxSlots;

    @Option(
            names = "--heartbeat",
            paramLabel = "DURATION",
            defaultValue = "${env:STANDBY_HEARTBEAT:-2s}",
            converter = DurationConverter.class,
            description = "How often owned slots are renewed (env STANDBY_HEARTBEAT; default: 2s).")
    Duration heartbeat;

    @Option(
            names = "--lease",
            paramLabel = "DURATION",
            defaultValue = "${env:STANDBY_LEASE:-20s}",
            converter = DurationConverter.class,
            description = "How long a slot stays owned without renewal, by the database's clock; more than twice "
                    + "--heartbeat (env STANDBY_LEASE; default: 20s). Robots stop at 0.9 x --lease without a "
                    + "renewal: above ~15s a replica-set election moves no slot, and pauses no robot of a node "
                    + "that a watch link covers (others pause at 1.8 x --heartbeat unless --no-fast-failover).")
    Duration lease;

    @Option(
            names = "--poll",
            paramLabel = "DURATION",
            defaultValue = "${env:STANDBY_POLL:-1s}",
            converter = DurationConverter.class,
            description =
                    "How often a node looks for claimable slots; less than --lease (env STANDBY_POLL; default: 1s).")
    Duration poll;

    @Option(
            names = "--plugins",
            paramLabel = "DIR",
            defaultValue = "${env:STANDBY_PLUGINS}",
            description =
                    "A directory of jars with more robot types (env STANDBY_PLUGINS); each jar names its factories "
                            + "in the service file%nMETA-INF/services/io.standby.robot.RobotFactory. The built-in "
                            + "types are always there.")
    Path plugins;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "A properties file of these settings, keyed by the option names without '--' "
                    + "(heartbeat=3s, max-slots=4, mongo=...); options on the command line win.")
    Path config;

    @Option(
            names = "--fast-failover",
            negatable = true,
            arity = "0..1",
            paramLabel = "BOOLEAN",
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Take a slot over before its lease runs out when its owner's heartbeat is late and its address, "
                            + "which accepted this node's connects before, refuses two in a row: its process is "
                            + "gone (default: "
                            + "${DEFAULT-VALUE}). Needs --ip to be the address other nodes reach this node at. "
                            + "--no-fast-failover "
                            + "always waits out the lease.")
    boolean fastFailover;

    @Option(
            names = "--watch-links",
            negatable = true,
            arity = "0..1",
            paramLabel = "BOOLEAN",
            defaultValue = "${env:STANDBY_WATCH_LINKS:-true}",
            fallbackValue = "true",
            description =
                    "Watch links (env STANDBY_WATCH_LINKS; default: on): other nodes keep a connection to this one and "
                            + "take its slots about 1.1 x --watch-lease after it died or froze, whatever the lease; "
                            + "this node pauses a "
                            + "slot's robots if a link breaks and the database does not answer a renewal within "
                            + "about 0.4 x "
                            + "--watch-lease. Links are authenticated with the cluster's key, kept in the database "
                            + "(collection "
                            + "secrets). --no-watch-links: slots are taken over at the late mark or the lease.")
    boolean watchLinks;

    @Option(
            names = "--watch-lease",
            paramLabel = "DURATION",
            defaultValue = "${env:STANDBY_WATCH_LEASE}",
            converter = DurationConverter.class,
            description =
                    "The watch lease (env STANDBY_WATCH_LEASE; default: 1s, or --heartbeat if shorter); at least 100ms "
                            + "and below the late mark (2 x --heartbeat). Below a --heartbeat of 500ms links are "
                            + "off unless this is "
                            + "given: the late mark is about as fast there.")
    Duration watchLease;

    @Option(
            names = "--watch-port",
            paramLabel = "PORT",
            defaultValue = "${env:STANDBY_WATCH_PORT:-0}",
            description =
                    "The port of --ip this node takes watch links on (env STANDBY_WATCH_PORT; default: 0, any free "
                            + "port, which this node writes into its owner document). Set one where a firewall or a "
                            + "NetworkPolicy "
                            + "must allow it; other nodes must reach it.")
    int watchPort;

    @Option(
            names = "--stop-timeout",
            paramLabel = "DURATION",
            defaultValue = "${env:STANDBY_STOP_TIMEOUT:-10s}",
            converter = DurationConverter.class,
            description = "On SIGTERM, how long robots get for a final checkpoint before they are interrupted "
                    + "(env STANDBY_STOP_TIMEOUT; default: 10s).")
    Duration stopTimeout;

    @Override
    public Integer call() throws Exception {
        if (config != null) {
            // The file's settings as options, through the parser like typed ones: run again with them.
            CommandLine again = StandbyCli.commandLine();
            again.setOut(spec.commandLine().getOut());
            again.setErr(spec.commandLine().getErr());
            return again.execute(ConfigFile.expand(config, spec));
        }
        // Every check that needs no network comes first, so bad input changes nothing.
        if (ip == null || port == null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "Missing required options: " + (ip == null ? "'--ip=IP'" : "")
                            + (ip == null && port == null ? ", " : "") + (port == null ? "'--port=PORT'" : ""));
        }
        Flags.usage(() -> new NodeId(ip, port));
        SlotTiming timing = Flags.usage(() -> SlotTiming.of(heartbeat, lease, poll));
        if (stopTimeout.isZero()) {
            throw Flags.invalid("invalid --stop-timeout " + Durations.format(stopTimeout) + ": must be more than 0");
        }
        RobotTypes types = Flags.usage(() -> RobotTypes.discover(plugins));
        StandbyCli root = (StandbyCli) spec.root().userObject();
        StandbyNodeBuilder builder = Flags.usage(() -> StandbyNode.builder()
                .mongo(root.mongo)
                .database(root.db)
                .node(ip, port)
                .maxSlots(maxSlots)
                .timing(timing)
                .stopTimeout(stopTimeout)
                .robotTypes(types)
                .listener(new LoggingListener(stopTimeout))
                .watchLease(watchLease)
                .watchPort(watchPort)
                .extension(NodeWeb.pages())
                .extension(StandbyMetrics.of(meters())));
        if (!fastFailover) {
            builder.withoutFastFailover();
        }
        if (!watchLinks) {
            builder.withoutWatchLinks();
        }
        // The builder throws IllegalArgumentException only for a setting, before it binds or connects.
        StandbyNode node = Flags.usage(builder::start);
        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM and Ctrl-C end the wait below instead of the JVM, which would exit 143 or 130 whatever the
        // hand-over did: the exit code then says whether the slots were handed over (0) or not (1).
        AtomicBoolean signalled = new AtomicBoolean();
        Signals.onStop(() -> {
            signalled.set(true);
            stopped.countDown();
        });
        // Any other way out (SIGHUP, an exit from elsewhere) still stops gracefully.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            if (!node.drained().isDone()) {
                                log.info("Stopping: letting robots checkpoint, then releasing slots");
                            }
                            node.close();
                        },
                        "standby-stop"));
        node.drained().thenRun(() -> {
            log.info("Drained: every slot is with a standby; stopping");
            stopped.countDown();
        });
        node.identityLost().thenRun(stopped::countDown);
        stopped.await();
        if (node.identityLost().isDone()) {
            // Every lease is fenced already; other nodes take this one for dead, so it must not go on.
            log.error("Stopping: {}", node.identityLost().join());
            return 1;
        }
        if (signalled.get() && !node.drained().isDone()) {
            log.info("Stopping: letting robots checkpoint, then releasing slots");
            node.close();
            return HandOver.confirmed(root, node.config()) ? 0 : 1;
        }
        // Drained: the shutdown hook closes the node (nothing left to release) as the JVM exits.
        return 0;
    }

    /** Prometheus' registry, for the node's {@code /metrics}, with the JVM's and the process's own meters. */
    private static PrometheusMeterRegistry meters() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        for (MeterBinder binder : List.<MeterBinder>of(
                new ClassLoaderMetrics(),
                new JvmMemoryMetrics(),
                new JvmGcMetrics(),
                new JvmThreadMetrics(),
                new ProcessorMetrics(),
                new UptimeMetrics(),
                new FileDescriptorMetrics())) {
            binder.bindTo(registry);
        }
        return registry;
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
            log.info(
                    "Releasing {} (epoch {}): its robots get up to {} to checkpoint",
                    lease.slotId(),
                    lease.epoch(),
                    Durations.format(stopTimeout));
        }

        @Override
        public void lost(Lease lease, LossReason reason) {
            log.info(
                    "Stopped {} (epoch {}): {}",
                    lease.slotId(),
                    lease.epoch(),
                    reason.name().toLowerCase());
        }
    }

    @Command(
            name = "drain",
            footerHeading = "%nExamples:%n",
            footer = {
                "  standby node drain 10.0.0.5:7700",
                "  standby node drain 10.0.0.5:7700 --force     # even if no other node has room for its slots"
            },
            description = {
                "Asks a node to hand its slots to standbys one at a time, then stop.",
                "The node sees the request at its next poll (a node without slots at its next registry write), "
                        + "releases one slot, waits for a standby to take it, then the next; then it exits. Refused, "
                        + "changing nothing, unless the other live nodes have room for every slot it holds; should the "
                        + "room go meanwhile, the node keeps serving its slots and waits until there is room again. "
                        + "SIGTERM stops a node gracefully too, releasing all its slots at once."
            })
    static final class Drain extends AdminCommand {
        @Parameters(paramLabel = "IP:PORT", description = "The node to drain, as 'standby nodes' lists it.")
        String node;

        @Option(
                names = "--force",
                description = "Hand the slots over even if no other live node has room for them: "
                        + "those stay unowned until one has. Also forces a drain that waits for room.")
        boolean force;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            NodeId id;
            try {
                id = NodeId.parse(node);
            } catch (IllegalArgumentException e) {
                // Not through Flags: its message says "ip:port", which is not two options here.
                throw Flags.invalid(e.getMessage());
            }
            try (StandbyDatabase db = connect()) {
                NodeView view;
                try {
                    view = force ? new NodeTable(db).forceDrain(id) : new NodeTable(db).drain(id);
                } catch (NodeTable.Refused e) {
                    throw new StandbyCli.UserError("cannot drain " + e.reason()
                            + "; start a node with room, or use --force to release them anyway");
                }
                Map<String, Object> done = new LinkedHashMap<>();
                done.put("result", "drain-requested");
                done.put("node", id.toString());
                done.put("instance", view.instance());
                done.put("forced", force);
                done.put("slots", view.slots());
                if (output.print(out(), done)) {
                    return 0;
                }
                if (force) {
                    out().printf(
                                    "Asked %s to drain, forced: it hands its %d slot(s) over even with nowhere to "
                                            + "go, then stops.%n",
                                    id, view.slots().size());
                } else {
                    out().printf(
                                    "Asked %s to drain: it hands its %d slot(s) to standbys one at a time, then "
                                            + "stops.%n",
                                    id, view.slots().size());
                }
                out().flush();
                return 0;
            }
        }
    }
}
