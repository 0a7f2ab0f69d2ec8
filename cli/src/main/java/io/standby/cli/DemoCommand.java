package io.standby.cli;

import com.mongodb.MongoInterruptedException;
import de.bwaldvogel.mongo.MongoServer;
import io.standby.cli.DemoNodes.NodeProcess;
import io.standby.robot.admin.ClusterStatus;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.Durations;
import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code standby demo}: the whole story on this machine. An in-memory embedded database, nodes as separate processes,
 * counter robots; then one owner is killed with SIGKILL and another stopped with SIGTERM, and the demo measures the
 * takeover and the handover and checks that no counter ever went back.
 */
@Command(
        name = "demo",
        footerHeading = "%nExamples:%n",
        footer = {"  standby demo", "  standby demo --nodes 3 --slots 2 --robots 6 --duration 30s"},
        description = {
            "Runs the whole story on this machine: an in-memory database, nodes as separate processes, "
                    + "counter robots, a node killed with SIGKILL and one stopped with SIGTERM.",
            "Prints what it measured: how long each takeover and handover took, and whether any counter ever went "
                    + "back. "
                    + "Tells the whole story, then watches the counters until --duration has passed since the start, "
                    + "or until Ctrl-C; it leaves no process behind."
        })
final class DemoCommand implements Callable<Integer> {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Spec
    CommandSpec spec;

    @Option(
            names = "--nodes",
            defaultValue = "5",
            paramLabel = "N",
            description = "Node processes to start, 3-20 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--slots",
            defaultValue = "3",
            paramLabel = "M",
            description = "Slots, 1 to two less than --nodes (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(
            names = "--robots",
            defaultValue = "12",
            paramLabel = "R",
            description = "Counter robots, 1-1000 (default: ${DEFAULT-VALUE}).")
    int robots;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Stop this long after the start, never before the story ends (default: until Ctrl-C).")
    Duration duration;

    @Option(
            names = "--logs",
            paramLabel = "DIR",
            description = "Where the nodes' logs go (default: a new directory under the system's temp directory).")
    Path logsDir;

    private final DemoNodes nodeProcesses = new DemoNodes();
    private final CounterWatch counters = new CounterWatch();

    @Override
    public Integer call() throws Exception {
        if (nodes < 3 || nodes > 20) {
            throw Flags.invalid(
                    "invalid --nodes " + nodes + ": must be 3-20 (one is killed, one stopped, one takes over)");
        }
        if (slots < 1 || slots > nodes - 2) {
            throw Flags.invalid("invalid --slots " + slots + ": with --nodes " + nodes + " at most " + (nodes - 2)
                    + ", so that a standby is left for each of the two takeovers");
        }
        if (robots < 1 || robots > 1000) {
            throw Flags.invalid("invalid --robots " + robots + ": must be 1-1000");
        }
        if (duration != null && duration.isZero()) {
            throw Flags.invalid("invalid --duration 0s: must be more than 0");
        }
        PrintWriter out = spec.commandLine().getOut();
        long deadline = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        Thread main = Thread.currentThread();
        Signals.onStop(main::interrupt);
        Path logs;
        try {
            logs = logsDir == null ? Files.createTempDirectory("standby-demo-") : Files.createDirectories(logsDir);
        } catch (IOException e) {
            throw Flags.invalid("invalid --logs '" + logsDir + "': " + MongoCommand.rootMessage(e));
        }
        MongoServer server = new MongoServer(new QuietMemoryBackend());
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        InetSocketAddress address = server.getLocalAddress();
        String uri = "mongodb://127.0.0.1:" + address.getPort();
        List<String> measured = new ArrayList<>();
        try (StandbyDatabase db =
                StandbyDatabase.connect(uri, StandbyDatabase.DEFAULT_NAME, Duration.ofSeconds(10), null)) {
            say(out, "An in-memory MongoDB on " + uri + "; look at it with");
            out.println("  npx -y mongosh@1 " + uri + "/" + StandbyDatabase.DEFAULT_NAME
                    + " --quiet --eval 'db.slots.find()'    (or db.robots.find(), db.nodes.find())");
            out.println("  or: standby status --watch --mongo " + uri);
            new SlotTable(db).init(slots);
            RobotTable table = new RobotTable(db);
            for (int i = 0; i < robots; i++) {
                table.add(
                        new RobotTable.NewRobot(
                                String.format("counter-%02d", i + 1),
                                "counter",
                                "slot-" + (i % slots),
                                0,
                                1.0,
                                new Document("intervalMs", 500)),
                        OptionalDouble.empty());
            }
            say(out, "Created " + slots + " slot(s) and " + robots + " counter robot(s), each counting every 500ms.");
            say(
                    out,
                    "Starting " + nodes + " nodes (--heartbeat " + DemoNodes.HEARTBEAT + " --lease " + DemoNodes.LEASE
                            + " --poll " + DemoNodes.POLL + "); their logs are in " + logs);
            for (NodeProcess node : nodeProcesses.start(nodes, uri, logs)) {
                out.println("  node " + node.id() + ": pid " + node.process().pid() + ", dashboard http://" + node.id()
                        + "/");
            }
            out.flush();

            try {
                waitFor(() -> allOwnedAndRunning(db), "every slot owned and every robot running");
                counters.sample(db);
                say(out, "Every slot has an owner, every robot runs:");
                StatusCommand.Screen.print(ClusterStatus.read(db, 0), out, Map.of(), StatusCommand.Screen.Style.TEXT);

                waitFor(
                        () -> CounterWatch.counts(db).values().stream().allMatch(count -> count >= 3),
                        "the counters counting");
                Map<String, Long> before = CounterWatch.counts(db);
                SlotView victim = new SlotTable(db).get("slot-0").orElseThrow();
                NodeProcess owner = nodeProcesses.node(victim.owner());
                say(
                        out,
                        "kill -9 " + owner.process().pid() + ": " + owner.id() + ", the owner of slot-0 (epoch "
                                + victim.epoch()
                                + "). Its standbys hold watch links to it: a link's end alone proves nothing, but "
                                + "the owner pauses its "
                                + "robots itself 0.9 watch leases after its last acknowledged ping, so a standby "
                                + "takes over 1.1 watch "
                                + "leases after it, without waiting out the lease (a frozen owner goes silent and "
                                + "is taken over as fast).");
                long killed = System.nanoTime();
                owner.process().destroyForcibly();
                waitFor(() -> ownedAnew(db, victim), "a new owner of slot-0");
                Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
                SlotView taken = new SlotTable(db).get("slot-0").orElseThrow();
                String how = new EventTable(db)
                        .list(null, "slot-0", null, null).stream()
                                .filter(e -> "took-over".equals(e.type()) && e.epoch() == taken.epoch())
                                .map(EventView::how)
                                .findFirst()
                                .map(h -> switch (h) {
                                    case "link" -> ", by its watch link";
                                    case "owner-gone" -> ", its owner found gone";
                                    default -> ", its lease expired";
                                })
                                .orElse("");
                measured.add("takeover after kill -9: " + Durations.format(takeover) + " (lease " + DemoNodes.LEASE
                        + ")" + how);
                say(
                        out,
                        taken.owner() + " took slot-0 over at epoch " + taken.epoch() + ", "
                                + Durations.format(takeover) + " after the kill" + how + ".");
                waitFor(() -> allOwnedAndRunning(db), "the robots of slot-0 running again");
                waitFor(() -> CounterWatch.grewSince(db, before, "slot-0"), "the counters of slot-0 counting again");
                say(out, "The counters of slot-0 go on from their last checkpoints:");
                Map<String, Long> after = CounterWatch.counts(db);
                new RobotTable(db)
                        .list("slot-0")
                        .forEach(r -> out.println("  " + r.id() + ": " + before.get(r.id()) + " before the kill, "
                                + after.get(r.id()) + " now"));

                SlotView stopping = new SlotTable(db)
                        .list().stream()
                                .filter(s -> s.owner() != null && !s.id().equals("slot-0"))
                                .findFirst()
                                .orElse(taken);
                NodeProcess leaving = nodeProcesses.node(stopping.owner());
                say(
                        out,
                        "kill -TERM " + leaving.process().pid() + ": " + leaving.id() + " stops gracefully: its robots "
                                + "checkpoint, it releases " + stopping.id()
                                + ", and a standby takes it at its next poll.");
                long termed = System.nanoTime();
                leaving.process().destroy();
                waitFor(() -> ownedAnew(db, stopping), "a new owner of " + stopping.id());
                Duration handover = Duration.ofNanos(System.nanoTime() - termed);
                measured.add(
                        "handover after SIGTERM: " + Durations.format(handover) + " (poll " + DemoNodes.POLL + ")");
                say(
                        out,
                        new SlotTable(db).get(stopping.id()).orElseThrow().owner() + " took " + stopping.id()
                                + " over, " + Durations.format(handover)
                                + " after SIGTERM, without waiting for the lease.");
                waitFor(() -> allOwnedAndRunning(db), "every robot running again");
                StatusCommand.Screen.print(ClusterStatus.read(db, 0), out, Map.of(), StatusCommand.Screen.Style.TEXT);
                if (duration == null) {
                    say(out, "Watching the counters; Ctrl-C ends the demo.");
                } else if (System.nanoTime() < deadline) {
                    say(
                            out,
                            "Watching the counters for "
                                    + Durations.format(Duration.ofNanos(deadline - System.nanoTime())) + ".");
                }
                long nextLine = 0;
                while (System.nanoTime() < deadline) {
                    counters.sample(db);
                    if (System.nanoTime() >= nextLine) {
                        out.println("  " + LocalTime.now().withNano(0) + "  " + CounterWatch.oneLine(db));
                        out.flush();
                        nextLine = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                    }
                    Thread.sleep(Math.min(250, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
                }
            } catch (InterruptedException | MongoInterruptedException e) {
                // Ctrl-C or SIGTERM: what was measured so far is the summary.
            } catch (StoryCut e) {
                say(out, "Stopped before " + e.getMessage() + ".");
            }
            Thread.interrupted();
            counters.sample(db);
            nodeProcesses.stop(out);
            summary(out, measured);
        } finally {
            nodeProcesses.close();
            server.shutdownNow();
        }
        return 0;
    }

    /** A step of the story did not happen within {@link #WAIT}. */
    private static final class StoryCut extends Exception {
        StoryCut(String what) {
            super(what, null, false, false);
        }
    }

    /**
     * Waits for the next step of the story, which {@code --duration} never cuts short: a demo that stopped halfway
     * would show nothing of what it is for. A step that takes longer than {@link #WAIT} cuts it, and says which.
     */
    private void waitFor(BooleanSupplier condition, String what) throws InterruptedException, StoryCut {
        long giveUp = System.nanoTime() + WAIT.toNanos();
        while (true) {
            // Samples the counters as it goes: the check that none went back covers the whole story.
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() >= giveUp) {
                throw new StoryCut(what);
            }
            Thread.sleep(50);
        }
    }

    private boolean allOwnedAndRunning(StandbyDatabase db) {
        List<RobotView> all = new RobotTable(db).list(null);
        counters.sample(all);
        return new SlotTable(db).list().stream().allMatch(s -> s.owner() != null && !s.expired())
                && all.stream().allMatch(r -> r.state() == RobotState.RUNNING);
    }

    private static boolean ownedAnew(StandbyDatabase db, SlotView before) {
        return new SlotTable(db)
                .get(before.id())
                .map(s -> s.owner() != null && s.epoch() > before.epoch())
                .orElse(false);
    }

    private void summary(PrintWriter out, List<String> measured) {
        say(out, "Summary");
        measured.forEach(line -> out.println("  " + line));
        if (measured.isEmpty()) {
            out.println("  nothing measured: the demo stopped before the first takeover");
        }
        counters.summarize(out);
        out.flush();
    }

    static void say(PrintWriter out, String line) {
        out.println();
        out.println("== " + line);
        out.flush();
    }
}
