package io.standby.bench.chaos;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import io.standby.bench.Bench;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.bson.Document;

/**
 * One chaos run: the database and the nodes, the ledger robots, the producer, faults from the seed for the duration, a
 * quiet period, then the {@link Verdict} and the service gaps. Stops every process it started, also on failure.
 */
public final class Chaos {

    /**
     * The settings of a run. {@code fastFailover} false starts the nodes with {@code --no-fast-failover}: only to show
     * that the verdict's late-mark row can fail. {@code watch}: the nodes' watch links (their default unless said).
     * {@code every}: the mean time between faults, or null for the suite's 0.5 to 2 leases (a longer one makes a soak).
     * {@code counters}: counter robots beside the ledger robots (a soak's), judged only by being RUNNING and counting
     * at the end. {@code sampling}: a {@link Sampler} from the robots' start to the faults' end, or null.
     */
    public record Settings(
            int nodes,
            int slots,
            int robots,
            Duration duration,
            long seed,
            Cluster.Timing timing,
            int inputPerSecond,
            Duration catchUp,
            boolean fastFailover,
            Cluster.Watch watch,
            Duration every,
            int counters,
            Sampler.Settings sampling) {

        /** A chaos run: ledger robots only, nothing sampled. */
        public Settings(
                int nodes,
                int slots,
                int robots,
                Duration duration,
                long seed,
                Cluster.Timing timing,
                int inputPerSecond,
                Duration catchUp,
                boolean fastFailover,
                Cluster.Watch watch,
                Duration every) {
            this(
                    nodes,
                    slots,
                    robots,
                    duration,
                    seed,
                    timing,
                    inputPerSecond,
                    catchUp,
                    fastFailover,
                    watch,
                    every,
                    0,
                    null);
        }

        /** The watch lease the nodes run with, or null: no watch links. */
        public Duration watchLease() {
            return watch.resolve(timing);
        }
    }

    /**
     * What a run found: the verdict, the faults made and the outputs written; with sampling, the samples (empty
     * otherwise) and the counter robots left behind: not RUNNING, or not counting, once the faults ended.
     */
    public record Result(
            Verdict verdict,
            List<Fault> faults,
            long inputs,
            long outputs,
            List<SoakSample> samples,
            List<String> leftBehind) {}

    private final Settings settings;
    private final PrintStream out;

    public Chaos(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /**
     * The config of a chaos-ledger robot: one input for all, an output of its own. One output for all would hold robots
     * x inputs documents, and the embedded server scans a collection for each replayed output the ledger compares,
     * which after takeovers kept it too busy to renew leases.
     */
    static List<String> robotConfig(String robot) {
        return List.of(
                "database=" + Producer.DATABASE,
                "input=" + Producer.INPUT,
                "output=" + output(robot),
                "pollMs=1000",
                "batch=100");
    }

    static String output(String robot) {
        return "out_" + robot;
    }

    public static Cluster.Timing timing(Duration heartbeat, Duration lease, Duration poll) {
        return new Cluster.Timing(heartbeat, lease, poll);
    }

    public Result run(Path dir) {
        List<String> robots = new ArrayList<>();
        for (int i = 1; i <= settings.robots(); i++) {
            robots.add(String.format("ledger-%02d", i));
        }
        List<String> counters = new ArrayList<>();
        for (int i = 1; i <= settings.counters(); i++) {
            counters.add(String.format("counter-%02d", i));
        }
        Cluster cluster =
                new Cluster(dir, settings.nodes(), settings.timing(), settings.fastFailover(), settings.watch());
        Duration watchLease = cluster.watchLease();
        try (cluster) {
            cluster.database().initSlots(Cluster.DB, settings.slots());
            cluster.startNodes();
            addRobots(cluster, robots);
            addCounters(cluster, counters);
            Producer producer = new Producer(cluster.database().uri(), settings.inputPerSecond());
            long origin = System.currentTimeMillis();
            Faults faults;
            long inputs;
            Sampler sampler = settings.sampling() == null
                    ? null
                    : new Sampler(cluster, settings.sampling(), node -> node.frozen, out);
            try {
                List<String> all = new ArrayList<>(robots);
                all.addAll(counters);
                awaitRunning(cluster, all, Duration.ofSeconds(120));
                if (sampler != null) {
                    out.printf(
                            "Sampling every %d s from %d s after the start%n",
                            settings.sampling().every().toSeconds(), (System.currentTimeMillis() - origin) / 1000);
                    sampler.start();
                }
                out.printf(
                        "Faults from %d s after the start, for %d s:%n",
                        (System.currentTimeMillis() - origin) / 1000,
                        settings.duration().toSeconds());
                Faults.Pace pace =
                        new Faults.Pace(settings.seed(), settings.timing().lease(), watchLease, settings.every());
                faults = new Faults(cluster, pace, settings.slots(), robots, f -> out.println(f.line(origin)));
                faults.runUntil(System.currentTimeMillis() + settings.duration().toMillis());
                if (sampler != null) {
                    sampler.close();
                }
                cluster.heal();
            } finally {
                if (sampler != null) {
                    sampler.close();
                }
                producer.close();
                inputs = producer.produced();
            }
            Map<String, Long> countedAtEnd = counts(cluster, counters);
            long quiet = System.currentTimeMillis();
            boolean caughtUp = awaitCaughtUp(cluster, robots, inputs, settings.catchUp());
            List<String> leftBehind = awaitCounting(cluster, countedAtEnd, settings.catchUp());
            long quietEnd = System.currentTimeMillis();
            out.printf(
                    "Quiet: producer stopped at seq %d; every robot %s after %d ms%n",
                    inputs, caughtUp ? "caught up and RUNNING" : "NOT caught up", quietEnd - quiet);
            if (!counters.isEmpty()) {
                out.printf(
                        "Counter robots: %d of %d RUNNING and counting past their count at the faults' end%s%n",
                        counters.size() - leftBehind.size(),
                        counters.size(),
                        leftBehind.isEmpty() ? "" : "; left behind: " + leftBehind);
            }
            Map<String, String> states = states(cluster, robots);
            // Frozen before the rest is read: a context read while nodes still write could be older than an
            // acknowledgement recorded after it, and be taken for a lost one.
            cluster.stopNodes();
            SlotTiming timing = SlotTiming.of(
                    settings.timing().heartbeat(),
                    settings.timing().lease(),
                    settings.timing().poll());
            long lateMark = timing.late().toMillis();
            // A node whose slots showed no late mark when its link froze (a watch link covered it) runs to its
            // lease's deadline; the others must stop by the mark.
            long leaseDeadline = timing.lease().minus(timing.fenceMargin()).toMillis();
            List<Facts.Cut> cuts = faults.done().stream()
                    .filter(f -> f.kind() == Fault.Kind.CUT)
                    .map(f -> new Facts.Cut(
                            f.target(), f.pid(), f.start(), f.end(), f.alive(), f.links() == 0 ? leaseDeadline : -1))
                    .toList();
            History history;
            try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
                history = History.read(db.database(), dir, origin);
            }
            List<Facts.Freeze> freezes = faults.done().stream()
                    .filter(f -> f.kind().stops())
                    .map(f -> new Facts.Freeze(f.target(), f.pid(), f.start(), f.end(), f.woke(), f.links()))
                    .toList();
            Facts.Links links = watchLease == null
                    ? Facts.Links.OFF
                    : new Facts.Links(
                            watchLease.toMillis(),
                            freezes,
                            history.resumes(),
                            history.takenByLink(),
                            cluster.killedAt());
            Facts facts = facts(
                    cluster,
                    robots,
                    states,
                    new FaultFacts(faults.renewals(), cuts, lateMark, links),
                    dir.resolve("records"));
            Verdict verdict = Verdict.judge(facts);
            long outputs =
                    facts.outputs().values().stream().mapToLong(List::size).sum();
            out.printf(
                    "Verdict (%d inputs, %d outputs, %d run starts, ends and checkpoint calls recorded; every "
                            + "process on one host,"
                            + " so one clock; a time-based violation is counted only when certain from the recorded "
                            + "intervals;"
                            + " late mark %d ms, fast failover %s, %s):%n",
                    facts.input().size(),
                    outputs,
                    facts.records().size(),
                    lateMark,
                    settings.fastFailover() ? "on" : "OFF",
                    watchLease == null ? "watch links off" : "watch lease " + watchLease.toMillis() + " ms");
            verdict.lines().forEach(out::println);
            out.println("Cuts: " + verdict.cutSummary(lateMark));
            out.println("SIGSTOPs: " + verdict.freezeSummary(watchLease == null ? 0 : watchLease.toMillis()));
            out.println("Service gaps, fault start to the affected robot's first accepted checkpoint after it:");
            Gaps.table(
                            faults.done(),
                            facts.records(),
                            robots,
                            settings.timing().lease().toMillis())
                    .forEach(out::println);
            long firstFault =
                    faults.done().isEmpty() ? quiet : faults.done().getFirst().start();
            Churn.report(
                            faults.done(),
                            history,
                            cluster.scrapes(),
                            firstFault,
                            quietEnd,
                            settings.timing().lease().toMillis(),
                            settings.timing().poll().toMillis())
                    .forEach(out::println);
            out.println(verdict.passed() ? "PASSED" : "FAILED: see the violations above; logs and records in " + dir);
            return new Result(
                    verdict,
                    faults.done(),
                    inputs,
                    outputs,
                    sampler == null ? List.of() : sampler.samples(),
                    leftBehind);
        }
    }

    private void addRobots(Cluster cluster, List<String> robots) {
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            RobotTable table = new RobotTable(db);
            for (int i = 0; i < robots.size(); i++) {
                Document config = new Document();
                for (String kv : robotConfig(robots.get(i))) {
                    String[] p = kv.split("=", 2);
                    config.append(p[0], p[1].matches("\\d+") ? Integer.valueOf(p[1]) : p[1]);
                }
                table.add(
                        new RobotTable.NewRobot(
                                robots.get(i), ChaosLedger.TYPE, "slot-" + (i % settings.slots()), 0, 1, config),
                        OptionalDouble.empty());
            }
        }
    }

    /** Counter robots, on the slots in turn, counting every second. */
    private void addCounters(Cluster cluster, List<String> counters) {
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            RobotTable table = new RobotTable(db);
            for (int i = 0; i < counters.size(); i++) {
                table.add(
                        new RobotTable.NewRobot(
                                counters.get(i),
                                "counter",
                                "slot-" + (i % settings.slots()),
                                0,
                                1,
                                new Document("intervalMs", 1000)),
                        OptionalDouble.empty());
            }
        }
    }

    /** Each counter robot's checkpointed count now (-1 if it has none). */
    private static Map<String, Long> counts(Cluster cluster, List<String> counters) {
        Map<String, Long> counts = new TreeMap<>();
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            RobotTable table = new RobotTable(db);
            for (String counter : counters) {
                counts.put(counter, table.get(counter).map(Chaos::count).orElse(-1L));
            }
        }
        return counts;
    }

    private static long count(RobotView view) {
        return view.context() != null && view.context().get("count") instanceof Number n ? n.longValue() : -1;
    }

    /**
     * Waits for every counter robot to be RUNNING and past its count at the faults' end (so none was left stopped or
     * stuck by the churn); returns those that are not, after {@code atMost}.
     */
    private static List<String> awaitCounting(Cluster cluster, Map<String, Long> from, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        List<String> behind = new ArrayList<>(from.keySet());
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            RobotTable table = new RobotTable(db);
            while (!behind.isEmpty()) {
                behind.removeIf(c -> table.get(c)
                        .filter(v -> v.state().name().equals("RUNNING") && count(v) > from.get(c))
                        .isPresent());
                if (behind.isEmpty() || System.nanoTime() > deadline) {
                    break;
                }
                Bench.sleep(Duration.ofMillis(500));
            }
        }
        return behind;
    }

    /**
     * Waits for every robot to run. A node that exited meanwhile is started again, as a supervisor would: on a loaded
     * machine a node's first contact with the database can take longer than the 5 s it waits before it gives up.
     */
    private void awaitRunning(Cluster cluster, List<String> robots, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        // Each look reads every robot: not 5 times a second for a soak's 60 of them.
        Duration every = Duration.ofMillis(robots.size() > 20 ? 1000 : 200);
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            RobotTable table = new RobotTable(db);
            while (!robots.stream()
                    .allMatch(r -> table.get(r)
                            .map(v -> v.state().name().equals("RUNNING"))
                            .orElse(false))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the robots did not all start within " + atMost.toSeconds()
                            + " s (logs: " + cluster.dir() + ")");
                }
                for (Cluster.Node node : cluster.nodes()) {
                    String revived = node.revive();
                    if (!revived.isEmpty()) {
                        out.println("  " + node.name + " before the faults: " + revived.replace("; ", ""));
                    }
                }
                Bench.sleep(every);
            }
        }
    }

    private static boolean awaitCaughtUp(Cluster cluster, List<String> robots, long inputs, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB);
                StandbyDatabase ledger = cluster.database().connect(Producer.DATABASE)) {
            RobotTable table = new RobotTable(db);
            while (System.nanoTime() < deadline) {
                boolean all = true;
                for (String robot : robots) {
                    Optional<RobotView> view = table.get(robot);
                    if (view.isEmpty()
                            || !view.get().state().name().equals("RUNNING")
                            || ledger.database().getCollection(output(robot)).countDocuments(Filters.eq("robot", robot))
                                    < inputs) {
                        all = false;
                        break;
                    }
                }
                if (all) {
                    return true;
                }
                Bench.sleep(Duration.ofMillis(500));
            }
            return false;
        }
    }

    /** Each robot's state while the nodes still run. */
    private static Map<String, String> states(Cluster cluster, List<String> robots) {
        Map<String, String> states = new HashMap<>();
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            RobotTable table = new RobotTable(db);
            for (String robot : robots) {
                table.get(robot).ifPresent(v -> states.put(robot, v.state().name()));
            }
        }
        return states;
    }

    /** What the verdict judges of the faults: the robots renewed, the links cut, the late mark and the watch links. */
    private record FaultFacts(List<Facts.Renewal> renewals, List<Facts.Cut> cuts, long lateMark, Facts.Links links) {}

    private static Facts facts(
            Cluster cluster, List<String> robots, Map<String, String> states, FaultFacts faults, Path records) {
        TreeMap<Long, Long> input = new TreeMap<>();
        Map<String, List<Facts.Output>> outputs = new HashMap<>();
        Map<String, Facts.End> ends = new HashMap<>();
        List<Object> slotDocuments = new ArrayList<>();
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB);
                StandbyDatabase ledger = cluster.database().connect(Producer.DATABASE)) {
            MongoDatabase l = ledger.database();
            for (Document d : l.getCollection(Producer.INPUT).find()) {
                input.put(((Number) d.get("seq")).longValue(), ((Number) d.get("amount")).longValue());
            }
            for (Document d : robots.stream()
                    .flatMap(r -> l.getCollection(output(r)).find().into(new ArrayList<>()).stream())
                    .toList()) {
                Document entry = d.get("entry", Document.class);
                Long amount = entry != null && entry.get("amount") instanceof Number n ? n.longValue() : null;
                Long balance = d.get("balance") instanceof Number n ? n.longValue() : null;
                outputs.computeIfAbsent(d.getString("robot"), r -> new ArrayList<>())
                        .add(new Facts.Output(((Number) d.get("seq")).longValue(), amount, balance));
            }
            db.database().getCollection(SlotFields.COLLECTION).find().forEach(d -> slotDocuments.add(d.get("_id")));
            RobotTable table = new RobotTable(db);
            for (String robot : robots) {
                table.get(robot)
                        .filter(v -> states.containsKey(robot))
                        .ifPresent(v -> ends.put(
                                robot,
                                new Facts.End(
                                        states.get(robot), v.context() == null ? 0 : ChaosLedger.offset(v.context()))));
            }
        }
        return new Facts(
                input,
                outputs,
                readRecords(records),
                ends,
                robots,
                faults.renewals(),
                faults.cuts(),
                faults.lateMark(),
                faults.links(),
                slotDocuments);
    }

    private static List<Checkpoint> readRecords(Path dir) {
        List<Checkpoint> all = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return all;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                for (String line : Files.readAllLines(file)) {
                    Checkpoint c = Checkpoint.parse(line);
                    if (c != null) {
                        all.add(c);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all;
    }
}
