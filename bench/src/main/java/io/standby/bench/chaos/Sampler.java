package io.standby.bench.chaos;

import io.standby.bench.Scrape;
import io.standby.slot.StandbyDatabase;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Reads, every {@link Settings#every}, each running node's heap, RSS, threads, open file descriptors, database commands
 * per second and own map sizes, and the cluster's collection sizes ({@link SoakMeasure}). Series are keyed by node
 * name, which stays over restarts; a process younger than {@link Settings#nodeWarmUp} is marked not warm. A node under
 * a SIGSTOP is skipped that round (it could not answer, and a {@code jcmd} would wait on it). On its own thread, from
 * {@link #start} to {@link #close}.
 */
final class Sampler implements AutoCloseable {

    /**
     * @param every the time between rounds
     * @param nodeWarmUp how long a node process is left out of the judgement after its start
     * @param forceGc whether each round first forces a full GC in each node ({@code jcmd <pid> GC.run}), so that the
     *     heap read after it is what the node keeps; off (cheaper: the suite's short run), the heap is the live data
     *     size after the last major GC, or the heap in use before the first
     */
    record Settings(Duration every, Duration nodeWarmUp, boolean forceGc) {}

    private static final double MB = 1024.0 * 1024.0;

    private final Cluster cluster;
    private final Settings settings;
    private final Predicate<Cluster.Node> frozen;
    private final PrintStream out;
    private final List<SoakSample> samples = new ArrayList<>();
    /** Each node's last command count: its pid, the count, its robot writes among them, and when it was read. */
    private final Map<String, long[]> lastCommands = new HashMap<>();

    private final String jcmd;
    private volatile boolean stopping;
    private Thread thread;
    private int round;
    private long origin;

    Sampler(Cluster cluster, Settings settings, Predicate<Cluster.Node> frozen, PrintStream out) {
        this.cluster = cluster;
        this.settings = settings;
        this.frozen = frozen;
        this.out = out;
        this.jcmd = settings.forceGc() ? jcmd() : null;
    }

    void start() {
        origin = System.currentTimeMillis();
        thread = Thread.ofPlatform().name("soak-sampler").daemon().start(this::loop);
    }

    /** The samples so far. */
    synchronized List<SoakSample> samples() {
        return List.copyOf(samples);
    }

    /** When sampling started (wall clock, ms). */
    long origin() {
        return origin;
    }

    private void loop() {
        long next = System.nanoTime();
        while (!stopping) {
            try {
                sampleRound();
            } catch (RuntimeException e) {
                // One bad round (the database restarting, a node exiting mid-read) must not end the soak's figures.
                out.println("  sampler: round " + round + " failed: " + e);
            }
            next += settings.every().toNanos();
            long wait = next - System.nanoTime();
            if (wait < 0) {
                next = System.nanoTime();
                continue;
            }
            synchronized (this) {
                if (stopping) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void sampleRound() {
        int r = ++round;
        List<SoakSample> these = new ArrayList<>();
        for (Cluster.Node node : cluster.nodes()) {
            if (stopping) {
                return;
            }
            var process = node.process;
            int port = node.port;
            if (process == null || !process.isAlive() || frozen.test(node)) {
                continue;
            }
            sampleNode(r, node.name, process.pid(), port, these);
        }
        long at = System.currentTimeMillis();
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            for (String collection : SoakMeasure.COLLECTIONS) {
                long count = db.database().getCollection(collection).countDocuments();
                these.add(new SoakSample(r, at, SoakSample.CLUSTER, 0, true, SoakMeasure.DOCS + collection, count));
            }
        } catch (RuntimeException e) {
            out.println("  sampler: round " + r + ": the collections could not be counted: " + e.getMessage());
        }
        synchronized (this) {
            samples.addAll(these);
        }
        out.println(summary(r, these));
    }

    private void sampleNode(int r, String name, long pid, int port, List<SoakSample> to) {
        boolean warm = age(pid) >= settings.nodeWarmUp().toMillis();
        boolean gcForced = jcmd != null && gc(pid);
        Scrape scrape = Scrape.of(port);
        long at = System.currentTimeMillis();
        ProcStats proc = ProcStats.of(pid);
        if (scrape != null) {
            double used = scrape.sum("jvm_memory_used_bytes", "area", "heap").orElse(Double.NaN);
            double live = scrape.sum("jvm_gc_live_data_size_bytes").orElse(0);
            // Unforced, a young node may have had no major GC yet: its heap in use stands in until it has.
            double heap = gcForced || live <= 0 ? used : live;
            if (heap > 0) {
                to.add(new SoakSample(r, at, name, pid, warm, SoakMeasure.HEAP, heap / MB));
            }
            double all = scrape.sum("mongodb_driver_commands_seconds_count").orElse(0);
            double robotWrites = scrape.sum(
                            "mongodb_driver_commands_seconds_count", "command", "update", "collection", "robots")
                    .orElse(0);
            long[] last = lastCommands.put(name, new long[] {pid, (long) all, (long) robotWrites, at});
            if (last != null && last[0] == pid && at > last[3]) {
                double seconds = (at - last[3]) / 1000.0;
                double writes = (robotWrites - last[2]) / seconds;
                double others = (all - last[1]) / seconds - writes;
                to.add(new SoakSample(r, at, name, pid, warm, SoakMeasure.COMMANDS, others));
                to.add(new SoakSample(r, at, name, pid, warm, SoakMeasure.ROBOT_WRITES, writes));
            }
            for (Scrape.Sample s : scrape.samples()) {
                if (s.name().equals(NodeScrape.REMEMBERED) && s.labels().containsKey("map")) {
                    to.add(new SoakSample(
                            r, at, name, pid, warm, SoakMeasure.MAP + s.labels().get("map"), s.value()));
                }
            }
        }
        if (proc != null) {
            to.add(new SoakSample(r, at, name, pid, warm, SoakMeasure.RSS, proc.rssKb() / 1024.0));
            to.add(new SoakSample(r, at, name, pid, warm, SoakMeasure.THREADS, proc.threads()));
            to.add(new SoakSample(r, at, name, pid, warm, SoakMeasure.FDS, proc.fds()));
        }
    }

    /** How long the process has run, in ms (0 if unknown: not warm). */
    private static long age(long pid) {
        Optional<Instant> start = ProcessHandle.of(pid).flatMap(p -> p.info().startInstant());
        return start.map(s -> System.currentTimeMillis() - s.toEpochMilli()).orElse(0L);
    }

    /** {@code jcmd <pid> GC.run}, given 20 s; whether it said it ran. */
    private boolean gc(long pid) {
        try {
            Process p = new ProcessBuilder(jcmd, Long.toString(pid), "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The jcmd beside the java that runs this bench (the nodes run on it too), or the one on the path. */
    private static String jcmd() {
        Optional<String> java = ProcessHandle.current().info().command();
        if (java.isPresent()) {
            Path beside = Path.of(java.get()).resolveSibling("jcmd");
            if (Files.isExecutable(beside)) {
                return beside.toString();
            }
        }
        return "jcmd";
    }

    private String summary(int r, List<SoakSample> these) {
        StringBuilder line = new StringBuilder(String.format(
                Locale.ROOT, "  sample %d at %.1f min:", r, (System.currentTimeMillis() - origin) / 60_000.0));
        for (String m : List.of(
                SoakMeasure.HEAP,
                SoakMeasure.RSS,
                SoakMeasure.THREADS,
                SoakMeasure.FDS,
                SoakMeasure.COMMANDS,
                SoakMeasure.ROBOT_WRITES)) {
            these.stream()
                    .filter(s -> s.measure().equals(m))
                    .mapToDouble(SoakSample::value)
                    .average()
                    .ifPresent(v -> line.append(String.format(Locale.ROOT, " %s %.1f", m, v)));
        }
        these.stream()
                .filter(s -> s.measure().startsWith(SoakMeasure.DOCS))
                .forEach(s -> line.append(String.format(
                        Locale.ROOT, " %s %d", s.measure().substring(SoakMeasure.DOCS.length()), (long) s.value())));
        long nodes = these.stream()
                .filter(s -> !s.node().equals(SoakSample.CLUSTER))
                .map(SoakSample::node)
                .distinct()
                .count();
        return line.append(" (").append(nodes).append(" nodes read)").toString();
    }

    /** Stops after the round under way and writes every sample to {@code csv}. */
    @Override
    public void close() {
        stopping = true;
        synchronized (this) {
            notifyAll();
        }
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(120));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
