package io.standby.bench;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import io.standby.robot.model.RobotCodec;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench scale}: one real node, one slot, N {@code counter} robots on the embedded database (in a process of its
 * own). It measures, from the database's own times, the node's log and jcmd: slot win to all RUNNING, heap per idle
 * robot, checkpoints acknowledged per second (and the server's ceiling for the same updates sent raw), and a SIGTERM
 * with every robot checkpointing: when the slot is released, and whether every robot's final state was written.
 */
@Command(
        name = "scale",
        mixinStandardHelpOptions = true,
        description = "N counter robots on one node: start, heap per robot, checkpoints per second, SIGTERM.")
public final class ScaleBench implements Runnable {

    static final String DB = "scale";
    private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");
    private static final Pattern TOOK = Pattern.compile("(Took \\d+ of \\d+ robot.*)");

    @Spec
    CommandSpec spec;

    @Option(
            names = "--robots",
            paramLabel = "N",
            defaultValue = "10000",
            description = "Counter robots (default: ${DEFAULT-VALUE}).")
    int robots;

    @Option(
            names = "--interval-ms",
            paramLabel = "MS",
            defaultValue = "1000",
            description =
                    "How often each counter checkpoints while checkpoints are measured (default: ${DEFAULT-VALUE}).")
    int intervalMs;

    @Option(
            names = "--window",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How long checkpoints and the server's ceiling are measured (default: ${DEFAULT-VALUE}).")
    int windowSeconds;

    @Option(
            names = "--node-heap",
            paramLabel = "SIZE",
            description = "The node's -Xmx (default: 2g; with --launcher, the launcher's own default).")
    String nodeHeap;

    @Option(
            names = "--launcher",
            paramLabel = "PATH",
            description = "Start the database and the node through this launcher script (./standby), as a user "
                    + "does, with its JVM options, instead of from this bench's class path.")
    Path launcher;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "0",
            description = "Instead of the whole measurement, N rounds of: a node starts, wins the slot and starts "
                    + "every robot; then SIGTERM (default: ${DEFAULT-VALUE}, the whole measurement).")
    int rounds;

    @Option(
            names = "--mongo-java-option",
            paramLabel = "OPTION",
            description = "One more JVM option for the database, repeatable (with --launcher only, e.g. "
                    + "-XX:StartFlightRecording=filename=mongo.jfr).")
    List<String> mongoJavaOptions = new ArrayList<>();

    @Option(
            names = "--node-java-option",
            paramLabel = "OPTION",
            description =
                    "One more JVM option for the node, repeatable (e.g. -XX:StartFlightRecording=filename=node.jfr "
                            + "to profile it).")
    List<String> nodeJavaOptions = new ArrayList<>();

    @Override
    public void run() {
        validate();
        Path dir = Bench.runDirectory("scale");
        List<AutoCloseable> started = new ArrayList<>();
        try (Database database =
                launcher == null ? Database.inMemory(dir) : Database.inMemory(dir, launcher, mongoJavaOptions)) {
            started.add(database);
            System.out.printf(
                    Locale.ROOT,
                    "scale: %d counter robots, one node (%s, -Xmx%s, default timing), embedded database in memory; "
                            + "%d cores, load %s; logs in %s%n",
                    robots,
                    launcher == null ? "from the bench's class path" : "through " + launcher,
                    heap() == null ? " of the launcher" : heap(),
                    Runtime.getRuntime().availableProcessors(),
                    Machine.loadAverage(),
                    dir);
            database.initSlots(DB, 1);
            // A minute per operation: on a loaded machine the embedded server takes seconds for a scan of N robots.
            try (StandbyDatabase admin = StandbyDatabase.connect(database.uri(), DB, Duration.ofSeconds(60), null)) {
                Measurement measurement = new Measurement(database, admin, dir, started);
                if (rounds > 0) {
                    measurement.rounds();
                } else {
                    measurement.run();
                }
            }
            System.out.printf("scale: done; load %s%n", Machine.loadAverage());
        } finally {
            closeAll(started);
        }
    }

    private void validate() {
        if (robots < 1) {
            throw new ParameterException(spec.commandLine(), "--robots " + robots + " must be at least 1");
        }
        if (intervalMs < 1) {
            throw new ParameterException(spec.commandLine(), "--interval-ms " + intervalMs + " must be at least 1");
        }
        if (windowSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--window " + windowSeconds + " must be at least 1");
        }
        if (rounds < 0) {
            throw new ParameterException(spec.commandLine(), "--rounds " + rounds + " must be at least 0");
        }
        if (launcher != null && !java.nio.file.Files.isExecutable(launcher)) {
            throw new ParameterException(spec.commandLine(), "--launcher " + launcher + " is not an executable file");
        }
        if (launcher == null && !mongoJavaOptions.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--mongo-java-option needs --launcher");
        }
        if (nodeHeap != null && !nodeHeap.matches("\\d+[kmgKMG]?")) {
            throw new ParameterException(
                    spec.commandLine(), "--node-heap '" + nodeHeap + "' is not a heap size like 2g");
        }
    }

    /** The node's -Xmx, or null for the launcher's default. */
    private String heap() {
        return nodeHeap != null ? nodeHeap : launcher == null ? "2g" : null;
    }

    private static void closeAll(List<AutoCloseable> started) {
        for (AutoCloseable c : List.copyOf(started).reversed()) {
            try {
                c.close();
            } catch (Exception ignored) {
                // stopping everything is all that matters here
            }
        }
    }

    /** Heap used after a full GC, in bytes, from {@code jcmd PID GC.heap_info}. */
    static long heapAfterGc(long pid) {
        jcmd(pid, "GC.run");
        return heapUsed(jcmd(pid, "GC.heap_info"));
    }

    static long heapUsed(String heapInfo) {
        Matcher m = HEAP_USED.matcher(heapInfo);
        long kb = 0;
        boolean any = false;
        while (m.find()) {
            kb += Long.parseLong(m.group(1));
            any = true;
        }
        if (!any) {
            throw new IllegalStateException("no heap figures in jcmd's answer: " + heapInfo);
        }
        return kb * 1024;
    }

    private static String jcmd(long pid, String command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** One run of the measurement, on one database. */
    private final class Measurement {
        private final Database database;
        private final StandbyDatabase admin;
        private final Path dir;
        private final List<AutoCloseable> started;
        private final MongoCollection<Document> robotsColl;
        private final MongoCollection<Document> slots;
        private int nodes;

        Measurement(Database database, StandbyDatabase admin, Path dir, List<AutoCloseable> started) {
            this.database = database;
            this.admin = admin;
            this.dir = dir;
            this.started = started;
            this.robotsColl = admin.database().getCollection("robots");
            this.slots = admin.database().getCollection("slots");
        }

        void run() {
            long heap0;
            try (ChildJvm empty = node()) {
                awaitOwned(empty);
                Bench.sleep(Duration.ofSeconds(2));
                heap0 = heapAfterGc(empty.pid());
                empty.terminate(Duration.ofSeconds(60));
            }
            // Idle first: they never checkpoint, so each robot's 'updated' is the time its RUNNING landed.
            insertCounters(3_600_000);
            long heapN;
            try (ChildJvm idle = node()) {
                awaitAllRunning(idle);
                Date won = wonAt();
                Date last = robotsColl
                        .find()
                        .sort(Sorts.descending("updated"))
                        .first()
                        .getDate("updated");
                System.out.printf(
                        Locale.ROOT,
                        "start: slot won -> all %d robots RUNNING (database times): %d ms (target <= 2000 ms)%n",
                        robots,
                        last.getTime() - won.getTime());
                Bench.sleep(Duration.ofSeconds(2));
                heapN = heapAfterGc(idle.pid());
                System.out.printf(
                        Locale.ROOT,
                        "heap after full GC: 0 robots %.1f MB, %d idle robots %.1f MB: %.1f KB per robot (target <= "
                                + "20 KB)%n",
                        heap0 / 1e6,
                        robots,
                        heapN / 1e6,
                        (heapN - heap0) / 1024.0 / robots);
                idle.terminate(Duration.ofSeconds(60));
            }
            robotsColl.updateMany(new Document(), Updates.set("config.intervalMs", intervalMs));
            try (ChildJvm busy = node()) {
                awaitAllRunning(busy);
                Bench.sleep(Duration.ofSeconds(3));
                long c0 = sumCounts();
                long t0 = System.nanoTime();
                Bench.sleep(Duration.ofSeconds(windowSeconds));
                long c1 = sumCounts();
                long t1 = System.nanoTime();
                System.out.printf(
                        Locale.ROOT,
                        "checkpoints: %d robots every %d ms: %.0f acknowledged per second over %d s (offered "
                                + "%.0f/s; target >= 5000/s)%n",
                        robots,
                        intervalMs,
                        (c1 - c0) / ((t1 - t0) / 1e9),
                        windowSeconds,
                        robots * 1000.0 / intervalMs);
                stop(busy);
            }
            ceiling();
        }

        /**
         * {@code --rounds}: N times a fresh node wins the slot and starts every (idle) robot, then gets SIGTERM. Each
         * start is measured from the database's stored facts: the slot's {@code time} as its claim set it (the slot is
         * read every 10 ms until the claim shows; the first renewal comes a heartbeat later) to the {@code updated}
         * that each robot's RUNNING write stamped (idle robots write nothing else). The release is timed on this
         * bench's clock, from the signal to the first read of the slot without an owner.
         */
        void rounds() {
            insertCounters(3_600_000);
            List<Long> starts = new ArrayList<>();
            List<Long> releases = new ArrayList<>();
            for (int round = 1; round <= ScaleBench.this.rounds; round++) {
                long epochBefore = epoch();
                try (ChildJvm node = node()) {
                    Date won = awaitClaim(node, epochBefore);
                    long nodeCpu = Machine.cpuMillis(node.pid());
                    long serverCpu = Machine.cpuMillis(database.pid());
                    awaitAllRunning(node);
                    nodeCpu = Machine.cpuMillis(node.pid()) - nodeCpu;
                    serverCpu = Machine.cpuMillis(database.pid()) - serverCpu;
                    Date first = robotsColl
                            .find(Filters.eq("state", "RUNNING"))
                            .sort(Sorts.ascending("updated"))
                            .first()
                            .getDate("updated");
                    Date last = robotsColl
                            .find(Filters.eq("state", "RUNNING"))
                            .sort(Sorts.descending("updated"))
                            .first()
                            .getDate("updated");
                    long start = last.getTime() - won.getTime();
                    starts.add(start);
                    System.out.printf(
                            Locale.ROOT,
                            "round %d: slot won -> first RUNNING %d ms, -> all %d RUNNING %d ms (database times; "
                                    + "target <= 2000 ms); CPU from the win to the count of all RUNNING: node %d ms, "
                                    + "server %d ms; node says: %s; load %s%n",
                            round,
                            first.getTime() - won.getTime(),
                            robots,
                            start,
                            nodeCpu,
                            serverCpu,
                            startPhases(node.output()),
                            Machine.loadAverage());
                    releases.add(stop(node));
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "rounds: %d; slot won -> all RUNNING: median %d ms (min %d, max %d); SIGTERM -> released: median "
                            + "%d ms (min %d, max %d)%n",
                    starts.size(),
                    Stats.of(starts).p50(),
                    Stats.of(starts).percentile(0),
                    Stats.of(starts).percentile(100),
                    Stats.of(releases).p50(),
                    Stats.of(releases).percentile(0),
                    Stats.of(releases).percentile(100));
        }

        private long epoch() {
            return ((Number) slots.find(Filters.eq("_id", "slot-0")).first().get("epoch")).longValue();
        }

        /** The slot's time as the claim above {@code epochBefore} set it, read before its first renewal. */
        private Date awaitClaim(ChildJvm node, long epochBefore) {
            Date[] claimed = new Date[1];
            await(node, "win slot-0", Duration.ofSeconds(120), Duration.ofMillis(10), () -> {
                Document slot = slots.find(Filters.eq("_id", "slot-0"))
                        .projection(Projections.include("ip", "epoch", "time"))
                        .first();
                if (slot.get("ip") != null && ((Number) slot.get("epoch")).longValue() > epochBefore) {
                    claimed[0] = slot.getDate("time");
                    return true;
                }
                return false;
            });
            return claimed[0];
        }

        /** The node's own account of the start, from its log: for the profile only, never the figure. */
        private static String startPhases(String log) {
            Matcher m = TOOK.matcher(log);
            String last = "nothing";
            while (m.find()) {
                last = m.group(1);
            }
            return last;
        }

        private ChildJvm node() {
            int port = TestPorts.free(1).getFirst();
            List<String> jvm = new ArrayList<>();
            if (heap() != null) {
                jvm.add("-Xmx" + heap());
            }
            jvm.addAll(nodeJavaOptions);
            String name = "node-" + (++nodes);
            List<String> args = Children.nodeArgs(port, database.uri(), DB);
            ChildJvm node = launcher == null
                    ? Children.standby(dir, name, jvm, args)
                    : Children.launcher(launcher, dir, name, jvm, args);
            started.add(node);
            return node;
        }

        private void insertCounters(int interval) {
            List<Document> docs = IntStream.range(0, robots)
                    .mapToObj(i -> RobotCodec.newRobot(
                            String.format("counter-%05d", i),
                            "counter",
                            "slot-0",
                            0,
                            1.0,
                            new Document("intervalMs", interval)))
                    .toList();
            for (int from = 0; from < docs.size(); from += 1000) {
                robotsColl.insertMany(docs.subList(from, Math.min(docs.size(), from + 1000)));
            }
        }

        private void awaitOwned(ChildJvm node) {
            await(
                    node,
                    "own slot-0",
                    Duration.ofSeconds(60),
                    () -> slots.find(Filters.eq("_id", "slot-0")).first().get("ip") != null);
        }

        private void awaitAllRunning(ChildJvm node) {
            // Every 250 ms: the figure comes from the stored times, and each count makes the server scan every robot.
            await(
                    node,
                    "run all " + robots + " robots",
                    Duration.ofSeconds(180),
                    Duration.ofMillis(250),
                    () -> robotsColl.countDocuments(Filters.eq("state", "RUNNING")) == robots);
        }

        private void await(ChildJvm node, String what, Duration atMost, java.util.function.BooleanSupplier done) {
            await(node, what, atMost, Duration.ofMillis(50), done);
        }

        private void await(
                ChildJvm node, String what, Duration atMost, Duration every, java.util.function.BooleanSupplier done) {
            long deadline = System.nanoTime() + atMost.toNanos();
            while (!done.getAsBoolean()) {
                if (!node.isAlive()) {
                    throw new IllegalStateException(
                            node.name() + " exited before it could " + what + " (log: " + node.log() + ")");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(node.name() + " did not " + what + " within " + atMost.toSeconds()
                            + " s (log: " + node.log() + ")");
                }
                Bench.sleep(every);
            }
        }

        /** The server's time of the claim of slot-0 at its current epoch. */
        private Date wonAt() {
            long epoch =
                    ((Number) slots.find(Filters.eq("_id", "slot-0")).first().get("epoch")).longValue();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                Document event = admin.database()
                        .getCollection("events")
                        .find(Filters.and(
                                Filters.eq("slot", "slot-0"),
                                Filters.eq("epoch", epoch),
                                Filters.in("type", "claimed", "took-over", "took-back")))
                        .first();
                if (event != null) {
                    return event.getDate("time");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no claim event of slot-0 at epoch " + epoch);
                }
                Bench.sleep(Duration.ofMillis(100));
            }
        }

        private long sumCounts() {
            long sum = 0;
            for (Document doc : robotsColl.find().projection(Projections.include("context.count"))) {
                Object count = doc.get("context", Document.class).get("count");
                sum += count instanceof Number n ? n.longValue() : 0;
            }
            return sum;
        }

        /** SIGTERM while every robot checkpoints: when the slot is released, and whose final state was written. */
        private long stop(ChildJvm node) {
            long epoch =
                    ((Number) slots.find(Filters.eq("_id", "slot-0")).first().get("epoch")).longValue();
            long sent = System.nanoTime();
            Thread signal = Thread.ofPlatform().start(() -> node.signal("TERM"));
            long released = -1;
            while (node.isAlive() || released < 0) {
                if (released < 0
                        && slots.find(Filters.eq("_id", "slot-0")).first().get("ip") == null) {
                    released = System.nanoTime();
                }
                if (System.nanoTime() - sent > Duration.ofSeconds(60).toNanos()) {
                    break;
                }
                Bench.sleep(Duration.ofMillis(5));
            }
            node.awaitExit(Duration.ofSeconds(30));
            long exited = System.nanoTime();
            try {
                signal.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long finalWritten =
                    robotsColl.countDocuments(Filters.and(Filters.eq("state", "PENDING"), Filters.eq("node", null)));
            long counted = robotsColl.countDocuments(
                    Filters.and(Filters.gt("context.count", 0), Filters.eq("context.epoch", epoch)));
            java.util.Map<String, Integer> states = new java.util.TreeMap<>();
            robotsColl
                    .find()
                    .projection(Projections.include("state", "node"))
                    .forEach(d -> states.merge(
                            d.getString("state") + (d.get("node") == null ? "" : " on a node"), 1, Integer::sum));
            String log = node.output();
            System.out.printf(
                    Locale.ROOT,
                    "stop: SIGTERM -> slot released %s, process exited %d ms (target: released within 2000 ms)%n",
                    released < 0 ? "never" : (released - sent) / 1_000_000 + " ms",
                    (exited - sent) / 1_000_000);
            System.out.printf(
                    Locale.ROOT,
                    "stop: final state (PENDING, no node) written for %d of %d robots; %d kept a count checkpointed "
                            + "at epoch %d; "
                            + "log lines: %d 'not written', %d 'did not stop within' (target: all written, none "
                            + "interrupted); states %s%n",
                    finalWritten,
                    robots,
                    counted,
                    epoch,
                    occurrences(log, "not written"),
                    occurrences(log, "did not stop within"),
                    states);
            return released < 0 ? Long.MAX_VALUE : (released - sent) / 1_000_000;
        }

        /**
         * The same updates as checkpoints (flat filter by id and token fields, sequence, date), sent raw in bulks of
         * all robots.
         */
        private void ceiling() {
            List<String> ids = new ArrayList<>();
            robotsColl.find().projection(Projections.include("_id")).forEach(d -> ids.add(d.getString("_id")));
            long epoch =
                    ((Number) slots.find(Filters.eq("_id", "slot-0")).first().get("epoch")).longValue();
            long updates = 0;
            long seq = 1L << 40;
            long t0 = System.nanoTime();
            long end = t0 + Duration.ofSeconds(windowSeconds).toNanos();
            int bulks = 0;
            while (System.nanoTime() < end) {
                List<WriteModel<Document>> models = new ArrayList<>(ids.size());
                seq++;
                for (String id : ids) {
                    models.add(new UpdateOneModel<>(
                            new Document("_id", id)
                                    .append("slotId", "slot-0")
                                    .append("epoch", epoch)
                                    .append("seq", new Document("$lt", seq)),
                            Updates.combine(
                                    Updates.set("context", new Document("count", seq).append("epoch", epoch)),
                                    Updates.set("seq", seq),
                                    Updates.currentDate("updated"))));
                }
                updates += robotsColl
                        .bulkWrite(models, new BulkWriteOptions().ordered(false))
                        .getModifiedCount();
                bulks++;
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "server ceiling: raw driver bulk writes of %d checkpoint-shaped updates, %d bulk(s) in %.1f s: "
                            + "%.0f updates per second%n",
                    ids.size(),
                    bulks,
                    seconds,
                    updates / seconds);
        }
    }

    static int occurrences(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
