package io.standby.bench;

import io.standby.slot.SlotFields;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.testing.ChildJvm;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.bson.Document;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench flood}: strangers at an owner's watch port. An owner and a standby ({@code standby node} with no option:
 * watch links on) on one slot; once the standby's link is up, connections that open and close at once at a fixed rate,
 * and slow peers that send a partial or bogus hello and never read, for a while. The owner's /metrics and the slot are
 * sampled before, every second during, and after; the verdict says whether the owner kept its slot at its epoch, paused
 * nothing, kept its threads, heap and open files flat and its real link up, and whether the strangers cost it a
 * renewal.
 */
@Command(
        name = "flood",
        mixinStandardHelpOptions = true,
        description = {
            "Strangers at an owner's watch port: two 'standby node's at their defaults (watch links on), one slot;",
            "connections that connect and close at once (--rate a second) and slow peers that send a partial or bogus",
            "hello and never read, for --duration. Samples the owner's /metrics and the slot before, every second and",
            "after; exits 1 unless the owner kept its slot at its epoch, paused nothing, kept threads, heap and open",
            "files flat and its link to the standby, and the strangers cost no renewal."
        })
final class FloodBench implements Callable<Integer> {

    /** The watch protocol's first four bytes, "SBW2" (TcpWatchLinks). */
    static final int MAGIC = 0x53425732;
    /** How long a slow peer holds its connection before it opens another: past the owner's 2 s for a handshake. */
    static final Duration HOLD = Duration.ofSeconds(3);
    /** Bounds of "flat": platform threads during and after the flood, open files after, heap after a GC. */
    static final int THREADS_DURING = 10;

    static final int THREADS_AFTER = 2;
    static final int FILES_AFTER = 4;
    static final double HEAP_AFTER_MIB = 8;

    @Spec
    CommandSpec spec;

    @Mixin
    MongoOption mongo = new MongoOption();

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "10s",
            converter = DurationOption.class,
            description = "How long the flood lasts (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--rate",
            paramLabel = "N",
            defaultValue = "1000",
            description = "Connections a second that connect and close at once (default: ${DEFAULT-VALUE}; 0 with "
                    + "--slow-peers 0: "
                    + "the same samples with no stranger, to compare).")
    int rate;

    @Option(
            names = "--slow-peers",
            paramLabel = "N",
            defaultValue = "10",
            description = "Peers that send a partial or bogus hello and never read, each opening another after 3 s "
                    + "(default: ${DEFAULT-VALUE}).")
    int slowPeers;

    @Option(
            names = "--settle",
            paramLabel = "DURATION",
            defaultValue = "4s",
            converter = DurationOption.class,
            description = "How long after the flood the owner is sampled again (default: ${DEFAULT-VALUE}).")
    Duration settle;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Seeds the slow peers' garbage (default: ${DEFAULT-VALUE}).")
    long seed;

    /** One sample of the owner: its meters and the slot. */
    record Row(String when, Scrape owner, SlotView slot, long connects, long failed) {}

    @Override
    public Integer call() throws Exception {
        if (rate < 0 || slowPeers < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "invalid --rate " + rate + " or --slow-peers " + slowPeers
                            + ": at least 0 (both 0: the same samples without strangers, to compare)");
        }
        if (duration.toSeconds() < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "invalid --duration " + duration.toMillis() + "ms: at least 1s");
        }
        Path logs = Bench.runDirectory("flood");
        System.out.printf(
                Locale.ROOT,
                "flood: %d connections/s that connect and close, and %d slow peers, for %d s at an owner's "
                        + "watch port; logs in %s%n",
                rate,
                slowPeers,
                duration.toSeconds(),
                logs);
        System.out.println("machine at start: " + Machine.describe());
        try (Database db = mongo.open(logs);
                NodePair pair = new NodePair(logs, db, "flood", List.of())) {
            pair.start();
            int ownerPort = pair.ownerPort();
            int standbyPort = pair.standbyPort();
            ChildJvm owner = pair.node(ownerPort);
            long linkWait = pair.awaitLinked(Duration.ofSeconds(60));
            SlotView start = pair.watch().last();
            String instance = Objects.requireNonNull(start.instance(), "the slot's owner instance");
            Document ownerDoc = pair.client()
                    .database()
                    .getCollection(SlotFields.OWNERS_COLLECTION)
                    .find(new Document("_id", "owner:127.0.0.1:" + ownerPort + "/" + instance))
                    .first();
            if (ownerDoc == null || !(ownerDoc.get("watch") instanceof Number watch)) {
                throw new IllegalStateException("the owner's document has no watch port: " + ownerDoc);
            }
            int watchPort = watch.intValue();
            Object watchLease = ownerDoc.get("watchLease");
            System.out.printf(
                    Locale.ROOT,
                    "owner 127.0.0.1:%d (pid %d) holds %s at epoch %d, watch port %d, watch lease %s ms; "
                            + "standby 127.0.0.1:%d (pid %d) linked %d ms after it was ready%n",
                    ownerPort,
                    owner.pid(),
                    start.id(),
                    start.epoch(),
                    watchPort,
                    watchLease,
                    standbyPort,
                    pair.node(standbyPort).pid(),
                    linkWait);

            List<Row> rows = new ArrayList<>();
            // The sample before comes right after a full GC, with the link up: the GC (and jcmd's attach) can
            // stall the owner long enough for its link to end, and then it is done again once the link is back.
            boolean collected = false;
            Scrape first = null;
            for (int attempt = 1; attempt <= 3 && (first == null || links(first, "owner") != 1); attempt++) {
                pair.awaitLinked(Duration.ofSeconds(60));
                collected = collect(owner);
                Bench.sleep(Duration.ofMillis(200));
                first = scrape(ownerPort);
            }
            if (links(first, "owner") != 1) {
                throw new IllegalStateException(
                        "the standby's link to the owner did not stay up through a GC, three times");
            }
            long logFrom = Files.size(owner.log());
            rows.add(new Row(collected ? "before, after a GC" : "before", first, slot(pair), 0, 0));

            Flood flood = new Flood(watchPort, rate, duration, slowPeers, instance, seed);
            long began = System.nanoTime();
            flood.start();
            for (int second = 1; second <= duration.toSeconds(); second++) {
                LockSupport.parkNanos(began + TimeUnit.SECONDS.toNanos(second) - System.nanoTime());
                rows.add(new Row(second + " s", Scrape.of(ownerPort), slot(pair), flood.connects(), flood.failed()));
            }
            flood.stop();
            long floodNanos = System.nanoTime() - began;
            Bench.sleep(settle);
            rows.add(new Row(
                    "end + " + settle.toSeconds() + " s",
                    scrape(ownerPort),
                    slot(pair),
                    flood.connects(),
                    flood.failed()));
            Scrape standby = Scrape.of(standbyPort);
            byte[] logBytes = Files.readAllBytes(owner.log());
            String ownerLog =
                    new String(logBytes, (int) logFrom, logBytes.length - (int) logFrom, StandardCharsets.UTF_8);
            boolean collectedAfter = collected && collect(owner);
            Bench.sleep(Duration.ofMillis(200));
            rows.add(new Row(
                    collectedAfter ? "after a GC" : "after",
                    scrape(ownerPort),
                    slot(pair),
                    flood.connects(),
                    flood.failed()));

            System.out.println("machine at end: " + Machine.describe());
            System.out.println();
            print(rows);
            System.out.println();
            System.out.println(flood.describe(floodNanos));
            List<String> linkLines = ownerLog.lines()
                    .filter(l -> l.contains("watch link") || l.contains("Refused") || l.contains("pausing"))
                    .toList();
            System.out.println("the owner's log about links from the sample before to the one after the flood settled ("
                    + owner.log() + "):");
            linkLines.forEach(l -> System.out.println("  " + l));
            System.out.println();
            List<String> failed = verdicts(rows, start, pair.watch().changes(), standby, collectedAfter, floodNanos);
            if (failed.isEmpty()) {
                System.out.println("verdict: OK");
                return 0;
            }
            System.out.println("verdict: FAILED: " + String.join("; ", failed));
            return 1;
        }
    }

    private static Scrape scrape(int port) {
        for (int i = 0; i < 10; i++) {
            Scrape scrape = Scrape.of(port);
            if (scrape != null) {
                return scrape;
            }
            Bench.sleep(Duration.ofMillis(200));
        }
        throw new IllegalStateException("the owner's /metrics does not answer");
    }

    private static SlotView slot(NodePair pair) {
        return new SlotTable(pair.client()).get("slot-0").orElseThrow();
    }

    /** A full GC in {@code node} by {@code jcmd PID GC.run}, of the JDK the bench runs on; false if that failed. */
    private static boolean collect(ChildJvm node) {
        Path jcmd = Path.of(ChildJvm.javaCommand()).resolveSibling("jcmd");
        if (!Files.isExecutable(jcmd)) {
            return false;
        }
        try {
            Process process = new ProcessBuilder(jcmd.toString(), Long.toString(node.pid()), "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static double metric(Scrape scrape, String name, String... labels) {
        return scrape == null ? Double.NaN : scrape.sum(name, labels).orElse(Double.NaN);
    }

    private static double threads(Scrape s) {
        return metric(s, "jvm_threads_live_threads");
    }

    private static double heapMiB(Scrape s) {
        return metric(s, "jvm_memory_used_bytes", "area", "heap") / (1024 * 1024);
    }

    private static double files(Scrape s) {
        return metric(s, "process_files_open_files");
    }

    private static double slotPauses(Scrape s) {
        return metric(s, "standby_slot_pauses_total");
    }

    private static double watchPauses(Scrape s) {
        return metric(s, "standby_watch_pauses_total");
    }

    private static double refused(Scrape s) {
        return metric(s, "standby_watch_refused_total");
    }

    private static double links(Scrape s, String side) {
        return metric(s, "standby_watch_links", "side", side);
    }

    private static double linkEnds(Scrape s, String side) {
        return metric(s, "standby_watch_link_ends_total", "side", side);
    }

    private static double renewals(Scrape s) {
        return metric(s, "standby_lease_renewals_seconds_count");
    }

    private static double allocatedMiB(Scrape s) {
        return metric(s, "jvm_gc_memory_allocated_bytes_total") / (1024 * 1024);
    }

    private static void print(List<Row> rows) {
        System.out.println(
                "| sample | connects (failed) | threads | heap used | open files | slot pauses | watch pauses "
                        + "| refused | links (owner) | link ends (owner) | renewals | slot-0 |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Row r : rows) {
            Scrape s = r.owner();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d (%d) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s at epoch %d |%n",
                    r.when(),
                    r.connects(),
                    r.failed(),
                    n(threads(s)),
                    s == null ? "no answer" : String.format(Locale.ROOT, "%.1f MiB", heapMiB(s)),
                    n(files(s)),
                    n(slotPauses(s)),
                    n(watchPauses(s)),
                    n(refused(s)),
                    n(links(s, "owner")),
                    n(linkEnds(s, "owner")),
                    n(renewals(s)),
                    r.slot().owner(),
                    r.slot().epoch());
        }
    }

    private static String n(double value) {
        return Double.isNaN(value) ? "-" : String.valueOf(Math.round(value));
    }

    /** Prints a line for each verdict; returns those that failed. */
    private static List<String> verdicts(
            List<Row> rows,
            SlotView start,
            List<SlotWatch.Change> changes,
            Scrape standby,
            boolean collected,
            long floodNanos) {
        List<String> failed = new ArrayList<>();
        Scrape before = rows.getFirst().owner();
        Scrape end = rows.get(rows.size() - 2).owner();
        Scrape afterGc = rows.getLast().owner();
        List<Scrape> during = new ArrayList<>();
        rows.subList(1, rows.size() - 2).forEach(r -> during.add(r.owner()));
        long unanswered = during.stream().filter(Objects::isNull).count();

        boolean kept = changes.isEmpty()
                && rows.stream()
                        .allMatch(r -> start.owner().equals(r.slot().owner())
                                && r.slot().epoch() == start.epoch());
        verdict(
                failed,
                "slot kept",
                kept,
                String.format(
                        Locale.ROOT,
                        "slot-0 with %s at epoch %d at every sample; %d changes of owner "
                                + "seen by a read every 5 ms",
                        start.owner(),
                        start.epoch(),
                        changes.size()));

        double pauses = slotPauses(end) - slotPauses(before);
        double linkPauses = watchPauses(end) - watchPauses(before);
        verdict(
                failed,
                "nothing paused",
                pauses == 0 && linkPauses == 0,
                String.format(
                        Locale.ROOT,
                        "standby_slot_pauses_total %s -> %s, standby_watch_pauses_total %s -> %s, from the sample "
                                + "before to the one after "
                                + "the flood settled",
                        n(slotPauses(before)),
                        n(slotPauses(end)),
                        n(watchPauses(before)),
                        n(watchPauses(end))));

        double threadsBefore = threads(before);
        double threadsDuring = during.stream()
                .mapToDouble(FloodBench::threads)
                .filter(d -> !Double.isNaN(d))
                .max()
                .orElse(Double.NaN);
        double threadsAfter = threads(end);
        verdict(
                failed,
                "threads flat",
                threadsDuring <= threadsBefore + THREADS_DURING && threadsAfter <= threadsBefore + THREADS_AFTER,
                String.format(
                        Locale.ROOT,
                        "%s live threads before, at most %s during, %s after (bounds: before + %d during, + %d after; "
                                + "connections are served on virtual threads, which this gauge does not count)",
                        n(threadsBefore),
                        n(threadsDuring),
                        n(threadsAfter),
                        THREADS_DURING,
                        THREADS_AFTER));

        double heapBefore = heapMiB(before);
        double heapDuring = during.stream()
                .mapToDouble(FloodBench::heapMiB)
                .filter(d -> !Double.isNaN(d))
                .max()
                .orElse(Double.NaN);
        double heapAfter = heapMiB(afterGc);
        verdict(
                failed,
                "heap flat",
                heapAfter <= heapBefore + HEAP_AFTER_MIB,
                String.format(
                        Locale.ROOT,
                        "%.1f MiB used %s before, %.1f MiB %s after (bound: before + %.0f MiB); at most %.1f MiB "
                                + "during, garbage included",
                        heapBefore,
                        collected ? "after a full GC" : "(no GC: jcmd failed)",
                        heapAfter,
                        collected ? "after a full GC" : "(no GC)",
                        HEAP_AFTER_MIB,
                        heapDuring));

        double filesBefore = files(before);
        double filesDuring = during.stream()
                .mapToDouble(FloodBench::files)
                .filter(d -> !Double.isNaN(d))
                .max()
                .orElse(Double.NaN);
        double filesAfter = files(end);
        verdict(
                failed,
                "open files flat",
                filesAfter <= filesBefore + FILES_AFTER,
                String.format(
                        Locale.ROOT,
                        "%s before, at most %s during, %s after (bound: before + %d after)",
                        n(filesBefore),
                        n(filesDuring),
                        n(filesAfter),
                        FILES_AFTER));

        double minLinks = during.stream()
                .mapToDouble(r -> links(r, "owner"))
                .filter(d -> !Double.isNaN(d))
                .min()
                .orElse(Double.NaN);
        double ownerEnds = linkEnds(end, "owner") - linkEnds(before, "owner");
        boolean linked = links(end, "owner") == 1 && standby != null && links(standby, "standby") == 1;
        verdict(
                failed,
                "the standby's link",
                linked,
                String.format(
                        Locale.ROOT,
                        "%s: the owner counts %s (at least %s at each sample "
                                + "during), the standby %s; %s link ends on the owner's side",
                        !linked ? "not open" : ownerEnds == 0 ? "open throughout" : "reopened",
                        n(links(end, "owner")),
                        n(minLinks),
                        standby == null ? "did not answer" : n(links(standby, "standby")),
                        n(ownerEnds)));

        // A stranger never becomes a link, so it never ends one: only a link's end asks the owner for a renewal
        // beyond its heartbeat's. The real standby's link may end under load (judged above); its renewal is its own.
        Duration heartbeat = SlotTiming.defaults().heartbeat();
        double renewed = renewals(end) - renewals(before);
        double seconds = (end.atNanos() - before.atNanos()) / 1e9;
        long scheduled = (long) Math.ceil(seconds / (heartbeat.toMillis() / 1000.0));
        double beyond = Math.max(0, renewed - scheduled - ownerEnds);
        double refusedDelta = refused(end) - refused(before);
        verdict(
                failed,
                "strangers cost no renewal",
                beyond <= 1,
                String.format(
                        Locale.ROOT,
                        "%s renewals in the %.1f s from the sample before to the one after the flood: one a "
                                + "heartbeat (%d ms) makes %d, and "
                                + "%s link ends of the real standby on the owner's side ask one each; %s beyond "
                                + "(bound: 1, a heartbeat at the "
                                + "window's edge); %s strangers refused (standby_watch_refused_total)",
                        n(renewed),
                        seconds,
                        heartbeat.toMillis(),
                        scheduled,
                        n(ownerEnds),
                        n(beyond),
                        n(refusedDelta)));

        double allocated = allocatedMiB(afterGc) - allocatedMiB(before);
        double allocatedSeconds = (afterGc.atNanos() - before.atNanos()) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "note: the owner allocated %.0f MiB in the %.1f s from the sample before to the last one "
                        + "(jvm_gc_memory_allocated_bytes_total, counted at each GC%s): %.1f MiB/s%n",
                allocated,
                allocatedSeconds,
                collected ? ", both samples right after a full GC" : "",
                allocated / allocatedSeconds);
        if (unanswered > 0) {
            System.out.printf(
                    Locale.ROOT,
                    "note: the owner's /metrics did not answer %d of %d samples during the flood%n",
                    unanswered,
                    during.size());
        }
        System.out.printf(Locale.ROOT, "note: the flood lasted %.1f s%n", floodNanos / 1e9);
        return failed;
    }

    private static void verdict(List<String> failed, String what, boolean ok, String detail) {
        System.out.println("verdict " + what + ": " + (ok ? "OK" : "FAILED") + ": " + detail);
        if (!ok) {
            failed.add(what);
        }
    }

    /**
     * The strangers: threads that connect and close on a fixed schedule (every other close a reset, so that the bench's
     * own ports do not pile up in TIME_WAIT), and slow peers, each of one kind of bad hello.
     */
    static final class Flood {

        /** What a slow peer sends before it falls silent. */
        enum Kind {
            HALF_MAGIC("half the magic"),
            HTTP("an HTTP request"),
            MAGIC_GARBAGE("the magic, then garbage"),
            FORGED_PROOF("a hello for the owner's instance and a forged proof"),
            NO_PROOF("a hello for the owner's instance, then silence");

            final String text;

            Kind(String text) {
                this.text = text;
            }
        }

        private static final int CONNECTORS = 8;

        private final int port;
        private final int rate;
        private final long total;
        private final int slowPeers;
        private final String instance;
        private final long seed;
        private final long[] connectMicros;
        private final AtomicLong next = new AtomicLong();
        private final AtomicLong connects = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicLong slowConnections = new AtomicLong();
        private final AtomicLong slowFailures = new AtomicLong();
        private final Map<String, Long> errors = new TreeMap<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean stopped;
        private long began;

        Flood(int port, int rate, Duration duration, int slowPeers, String instance, long seed) {
            this.port = port;
            this.rate = rate;
            this.total = rate * duration.toSeconds();
            this.slowPeers = slowPeers;
            this.instance = instance;
            this.seed = seed;
            this.connectMicros = new long[(int) total];
        }

        void start() {
            began = System.nanoTime();
            for (int i = 0; i < CONNECTORS; i++) {
                threads.add(Thread.ofPlatform().daemon().name("flood-" + i).start(this::connectAndClose));
            }
            for (int i = 0; i < slowPeers; i++) {
                Kind kind = Kind.values()[i % Kind.values().length];
                Random random = new Random(seed * 31 + i);
                threads.add(Thread.ofPlatform().daemon().name("slow-" + i).start(() -> slow(kind, random)));
            }
        }

        /** Waits for the connectors to finish their schedule, then stops the slow peers. */
        void stop() throws InterruptedException {
            for (Thread thread : threads.subList(0, CONNECTORS)) {
                thread.join();
            }
            stopped = true;
            for (Thread thread : threads) {
                thread.interrupt();
                thread.join(5_000);
            }
        }

        long connects() {
            return connects.get();
        }

        long failed() {
            return failed.get();
        }

        private void connectAndClose() {
            while (true) {
                long i = next.getAndIncrement();
                if (i >= total) {
                    return;
                }
                LockSupport.parkNanos(began + i * 1_000_000_000L / rate - System.nanoTime());
                long t0 = System.nanoTime();
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                    connectMicros[(int) i] = (System.nanoTime() - t0) / 1_000;
                    if (i % 2 == 1) {
                        socket.setSoLinger(true, 0);
                    }
                    connects.incrementAndGet();
                } catch (IOException e) {
                    connectMicros[(int) i] = -1;
                    failed.incrementAndGet();
                    synchronized (errors) {
                        errors.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1L, Long::sum);
                    }
                }
            }
        }

        private void slow(Kind kind, Random random) {
            while (!stopped) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                    slowConnections.incrementAndGet();
                    OutputStream out = socket.getOutputStream();
                    out.write(hello(kind, random));
                    out.flush();
                    // Never reads: holds the connection past the owner's deadline for a handshake, then opens another.
                    Thread.sleep(HOLD);
                } catch (IOException e) {
                    slowFailures.incrementAndGet();
                    if (!stopped) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private byte[] hello(Kind kind, Random random) throws IOException {
            var bytes = new java.io.ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            switch (kind) {
                case HALF_MAGIC -> out.writeShort(MAGIC >>> 16);
                case HTTP ->
                    out.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                case MAGIC_GARBAGE -> {
                    out.writeInt(MAGIC);
                    byte[] garbage = new byte[200];
                    random.nextBytes(garbage);
                    out.write(garbage);
                }
                case FORGED_PROOF, NO_PROOF -> {
                    out.writeInt(MAGIC);
                    byte[] nonce = new byte[16];
                    random.nextBytes(nonce);
                    out.write(nonce);
                    writeId(out, "127.0.0.1:1/a-stranger");
                    writeId(out, instance);
                    if (kind == Kind.FORGED_PROOF) {
                        byte[] proof = new byte[32];
                        random.nextBytes(proof);
                        out.write(proof);
                    }
                }
            }
            out.flush();
            return bytes.toByteArray();
        }

        private static void writeId(DataOutputStream out, String id) throws IOException {
            byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
            out.writeShort(bytes.length);
            out.write(bytes);
        }

        /** The flood as it happened: connects made and failed, their time, and the slow peers. */
        String describe(long nanos) {
            List<Long> times = new ArrayList<>();
            for (long micros : connectMicros) {
                if (micros >= 0) {
                    times.add(micros);
                }
            }
            StringBuilder text = new StringBuilder(String.format(
                    Locale.ROOT,
                    "flood: %d of %d connects made in %.1f s (%.0f a second; every other closed by a reset), %d failed",
                    connects.get(),
                    total,
                    nanos / 1e9,
                    connects.get() / (nanos / 1e9),
                    failed.get()));
            synchronized (errors) {
                errors.forEach((error, count) -> text.append(String.format(Locale.ROOT, "%n  %d x %s", count, error)));
            }
            if (!times.isEmpty()) {
                Stats stats = Stats.of(times);
                text.append(String.format(
                        Locale.ROOT,
                        "%n  connect: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                        stats.p50() / 1000.0,
                        stats.p99() / 1000.0,
                        stats.max() / 1000.0));
            }
            List<String> kinds = new ArrayList<>();
            for (int i = 0; i < Math.min(slowPeers, Kind.values().length); i++) {
                kinds.add(Kind.values()[i].text);
            }
            text.append(String.format(
                    Locale.ROOT,
                    "%nslow peers: %d, %d connections (each held %d s, never read; %d failed), sending "
                            + "by turns: %s",
                    slowPeers,
                    slowConnections.get(),
                    HOLD.toSeconds(),
                    slowFailures.get(),
                    String.join("; ", kinds)));
            return text.toString();
        }
    }
}
