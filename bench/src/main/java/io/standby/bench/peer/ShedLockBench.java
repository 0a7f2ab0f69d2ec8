package io.standby.bench.peer;

import io.standby.bench.Bench;
import io.standby.bench.Database;
import io.standby.bench.DurationOption;
import io.standby.bench.Machine;
import io.standby.bench.MongoOption;
import io.standby.bench.Stats;
import io.standby.bench.Waits;
import io.standby.slot.SlotTiming;
import io.standby.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench shedlock}: the same standby-slot job as Standby's, built with ShedLock on the same embedded database,
 * side by side with two {@code standby node}s: takeover after kill -9 of the holder, and the commands per second of
 * holder and waiter. The contests run at the same time, each on its own database of one embedded server, so that the
 * slowest (ShedLock's keep-alive) sets the run's length.
 */
@Command(
        name = "shedlock",
        mixinStandardHelpOptions = true,
        description = {
            "Standby next to ShedLock (shedlock-provider-mongo 7.9.0) for one slot held by one of two processes:",
            "takeover after kill -9 of the holder, and database commands per second of holder and waiter."
        })
public final class ShedLockBench implements Callable<Integer> {

    /** Standby's default poll; the ShedLock jobs retry as often, so both waiters look equally often. */
    static final Duration RETRY = Duration.ofSeconds(1);
    /** After both contenders are up: a few polls, in which a standby finds the owner's address accepting. */
    private static final Duration SETTLE = Duration.ofSeconds(2);
    /** How many counting windows a contest gets before a holder that keeps changing fails the run. */
    private static final int WINDOWS = 3;

    private static final Map<String, BiFunction<Path, Database, Contest>> CONTESTS = new LinkedHashMap<>();

    /** Standby's least ceremony: {@code standby node} with no option, watch links on since issue 34. */
    static final SlotTiming DEFAULTS = SlotTiming.defaults();

    private static final SlotTiming FAST = SlotTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(3), RETRY);
    private static final List<String> FAST_OPTIONS = List.of("--heartbeat", "1s", "--lease", "3s", "--poll", "1s");
    private static final List<String> NO_LINKS = List.of("--no-watch-links");
    private static final List<String> LEASE_ONLY = List.of("--no-watch-links", "--no-fast-failover");

    static {
        standby("standby-fast", "standby 1s/3s", FAST, FAST_OPTIONS, List.of());
        standby("standby-fast-no-links", "standby 1s/3s no-links", FAST, FAST_OPTIONS, NO_LINKS);
        standby("standby-fast-lease-only", "standby 1s/3s lease-only", FAST, FAST_OPTIONS, LEASE_ONLY);
        CONTESTS.put("shedlock-extend", (dir, db) -> new ShedLockContest(dir, db, "shedlock_extend", "manual", RETRY));
        standby("standby-default", "standby defaults", DEFAULTS, List.of(), List.of());
        standby("standby-default-no-links", "standby defaults no-links", DEFAULTS, List.of(), NO_LINKS);
        standby("standby-default-lease-only", "standby defaults lease-only", DEFAULTS, List.of(), LEASE_ONLY);
        CONTESTS.put(
                "shedlock-keepalive",
                (dir, db) -> new ShedLockContest(dir, db, "shedlock_keepalive", "keepalive", RETRY));
    }

    private static void standby(
            String key, String name, SlotTiming timing, List<String> timingOptions, List<String> more) {
        List<String> options = new ArrayList<>(timingOptions);
        options.addAll(more);
        String dbName = key.replace('-', '_');
        CONTESTS.put(key, (dir, db) -> new StandbyContest(dir, db, dbName, name, options, timing));
    }

    /** Which ShedLock contest is compared with which Standby ones. */
    private static final Map<String, List<String>> PAIRS = new LinkedHashMap<>();

    static {
        PAIRS.put(
                "shedlock-extend",
                List.of("standby-default", "standby-fast", "standby-fast-no-links", "standby-fast-lease-only"));
        PAIRS.put(
                "shedlock-keepalive",
                List.of("standby-default", "standby-default-no-links", "standby-default-lease-only"));
    }

    /** Issue 34: Standby's defaults take over within this share of ShedLock's extend (1 s / 3 s), at the median. */
    static final double TARGET_SHARE = 0.3;

    @Spec
    CommandSpec spec;

    @Mixin
    MongoOption mongo = new MongoOption();

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "10",
            description = "Kills of the holder per contest (default: ${DEFAULT-VALUE}; the keep-alive contest, the "
                    + "slowest, takes 25 to 45 s a round).")
    int rounds;

    @Option(
            names = "--window",
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = DurationOption.class,
            description = "How long commands are counted, holder and waiter settled (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Option(
            names = "--contests",
            paramLabel = "NAME",
            split = ",",
            description = "Which to run (default: all): standby-fast, standby-fast-no-links, standby-fast-lease-only, "
                    + "shedlock-extend, standby-default (no option at all), standby-default-no-links, "
                    + "standby-default-lease-only, "
                    + "shedlock-keepalive. no-links: --no-watch-links; lease-only: --no-watch-links "
                    + "--no-fast-failover.")
    List<String> only;

    /** One contest's numbers. */
    record Result(
            Contest contest,
            Stats takeovers,
            Map<String, Integer> takenBy,
            double holderRate,
            double waiterRate,
            String holderKinds,
            String waiterKinds) {

        String takenByText() {
            return takenBy.isEmpty()
                    ? "-"
                    : takenBy.entrySet().stream()
                            .map(e -> e.getKey() + " " + e.getValue())
                            .collect(java.util.stream.Collectors.joining(", "));
        }
    }

    /** One kill: how long until another held the slot, and how it took it (null when the tool does not say). */
    record Kill(long millis, String how) {}

    @Override
    public Integer call() throws Exception {
        if (rounds < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "invalid --rounds " + rounds + ": must be at least 1");
        }
        if (window.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "invalid --window " + window.toMillis() + "ms: must be at least 1s");
        }
        List<String> names = only == null ? List.copyOf(CONTESTS.keySet()) : only;
        for (String name : names) {
            if (!CONTESTS.containsKey(name)) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "unknown contest '" + name + "': use one of " + String.join(", ", CONTESTS.keySet()));
            }
        }
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "standby-bench-shedlock-");
        System.out.println("shedlock: " + names.size() + " contests at once, " + rounds + " kills each, commands over "
                + window.toSeconds() + " s; logs in " + dir);
        System.out.println("machine at start: " + Machine.describe());
        List<Contest> contests = new ArrayList<>();
        Database database = mongo.open(dir);
        ExecutorService threads = Executors.newFixedThreadPool(names.size());
        try {
            List<Future<Result>> futures = new ArrayList<>();
            for (String name : names) {
                Contest contest = CONTESTS.get(name).apply(dir, database);
                contests.add(contest);
                futures.add(threads.submit(() -> run(contest)));
            }
            Map<String, Result> results = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                try {
                    results.put(names.get(i), futures.get(i).get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException(
                            names.get(i) + ": " + e.getCause().getMessage(), e.getCause());
                }
            }
            System.out.println("machine at end: " + Machine.describe());
            print(results);
            return 0;
        } finally {
            threads.shutdownNow();
            contests.forEach(Contest::close);
            database.close();
        }
    }

    private Result run(Contest contest) {
        contest.start();
        CommandCount holderFrom;
        CommandCount waiterFrom;
        CommandCount holderTo;
        CommandCount waiterTo;
        // A window counts a steady holder and waiter. ShedLock's holder can lose its lock on a loaded machine (its
        // extension is judged by the clocks of the processes), and then the counts mix two roles: count again.
        for (int attempt = 1; ; attempt++) {
            ChildJvm holder = contest.holder(Duration.ofMinutes(2));
            Bench.sleep(SETTLE);
            ChildJvm waiter = contest.other(holder);
            holderFrom = contest.commands(holder);
            waiterFrom = contest.commands(waiter);
            Bench.sleep(window);
            holderTo = contest.commands(holder);
            waiterTo = contest.commands(waiter);
            if (contest.holder(Duration.ofSeconds(10)) == holder) {
                break;
            }
            if (attempt == WINDOWS) {
                throw new IllegalStateException(
                        "the holder changed while commands were counted, in each of " + WINDOWS + " windows");
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s: the holder changed while commands were counted; counting again%n",
                    contest.name());
        }
        List<Long> takeovers = new ArrayList<>();
        Map<String, Integer> takenBy = new TreeMap<>();
        for (int round = 1; round <= rounds; round++) {
            Kill kill = killTheHolder(contest, round < rounds);
            takeovers.add(kill.millis());
            if (kill.how() != null) {
                takenBy.merge(kill.how(), 1, Integer::sum);
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s: round %d of %d, taken over %d ms after kill -9%s%n",
                    contest.name(),
                    round,
                    rounds,
                    kill.millis(),
                    kill.how() == null ? "" : " (" + kill.how() + ")");
        }
        return new Result(
                contest,
                Stats.of(takeovers),
                takenBy,
                holderTo.ratePerSecond(holderFrom),
                waiterTo.ratePerSecond(waiterFrom),
                holderTo.breakdown(holderFrom),
                waiterTo.breakdown(waiterFrom));
    }

    /**
     * Kills the holder at a random point of its renewal period; milliseconds until the database shows another. With
     * {@code replace}, a new contender takes the dead one's place for the next round; after the last round none is
     * started, whose start would only take CPU from the contests still running.
     */
    private static Kill killTheHolder(Contest contest, boolean replace) {
        ChildJvm holder = contest.holder(contest.bound().plusMinutes(1));
        Bench.sleep(SETTLE.plusMillis(
                ThreadLocalRandom.current().nextLong(contest.renewal().toMillis())));
        long before = contest.holding();
        long killed = System.nanoTime();
        holder.kill9();
        Waits.until(contest.name() + ": a takeover after kill -9", contest.bound(), Duration.ofMillis(10), () -> {
            long now = contest.holding();
            return now != -1 && now != before;
        });
        long took = (System.nanoTime() - killed) / 1_000_000;
        String how = contest.takenBy(contest.holding());
        if (replace) {
            contest.replace(holder);
        }
        return new Kill(took, how);
    }

    private static void print(Map<String, Result> results) {
        System.out.println();
        System.out.println("| contest | takeover after kill -9 | taken by | holder, commands/s | waiter, commands/s |");
        System.out.println("| --- | --- | --- | --- | --- |");
        results.values()
                .forEach(r -> System.out.printf(
                        Locale.ROOT,
                        "| %s | %s | %s | %.2f | %.2f |%n",
                        r.contest().name(),
                        r.takeovers().summary(),
                        r.takenByText(),
                        r.holderRate(),
                        r.waiterRate()));
        System.out.println();
        System.out.println("| ShedLock / Standby | takeover p50 | takeover max | holder commands | waiter commands |");
        System.out.println("| --- | --- | --- | --- | --- |");
        PAIRS.forEach((shedlock, standbys) -> {
            Result peer = results.get(shedlock);
            for (String standby : standbys) {
                Result ours = results.get(standby);
                if (peer != null && ours != null) {
                    System.out.printf(
                            Locale.ROOT,
                            "| %s / %s | %s | %s | %s | %s |%n",
                            peer.contest().name(),
                            ours.contest().name(),
                            ratio(peer.takeovers().p50(), ours.takeovers().p50()),
                            ratio(peer.takeovers().max(), ours.takeovers().max()),
                            ratio(peer.holderRate(), ours.holderRate()),
                            ratio(peer.waiterRate(), ours.waiterRate()));
                }
            }
        });
        Result defaults = results.get("standby-default");
        Result extend = results.get("shedlock-extend");
        if (defaults != null && extend != null) {
            double share =
                    (double) defaults.takeovers().p50() / extend.takeovers().p50();
            System.out.println();
            System.out.printf(
                    Locale.ROOT,
                    "target (issue 34): %s p50 <= %.1f x %s p50: %d / %d ms = %.2f: %s%n",
                    defaults.contest().name(),
                    TARGET_SHARE,
                    extend.contest().name(),
                    defaults.takeovers().p50(),
                    extend.takeovers().p50(),
                    share,
                    share <= TARGET_SHARE ? "met" : "NOT MET");
        }
        System.out.println();
        results.values().forEach(r -> {
            System.out.println(r.contest().name() + ": " + r.contest().settings());
            System.out.println("  holder sent: " + r.holderKinds());
            System.out.println("  waiter sent: " + r.waiterKinds());
        });
    }

    private static String ratio(double peer, double ours) {
        return ours == 0 ? "-" : String.format(Locale.ROOT, "%.2f", peer / ours);
    }
}
