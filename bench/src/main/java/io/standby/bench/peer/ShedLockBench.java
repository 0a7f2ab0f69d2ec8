package io.standby.bench.peer;

import io.standby.bench.Bench;
import io.standby.bench.Database;
import io.standby.bench.DurationOption;
import io.standby.bench.Machine;
import io.standby.bench.Stats;
import io.standby.bench.Waits;
import io.standby.testing.ChildJvm;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;

/**
 * {@code bench shedlock}: the same standby-slot job as Standby's, built with ShedLock on the same embedded
 * database, side by side with two {@code standby node}s: takeover after kill -9 of the holder, and the
 * commands per second of holder and waiter. The contests run at the same time, each on its own database
 * of one embedded server, so that the slowest (ShedLock's keep-alive) sets the run's length.
 */
@Command(name = "shedlock", mixinStandardHelpOptions = true,
        description = {"Standby next to ShedLock (shedlock-provider-mongo 7.9.0) for one slot held by one of two processes:",
            "takeover after kill -9 of the holder, and database commands per second of holder and waiter."})
public final class ShedLockBench implements Callable<Integer> {

    /** Standby's default poll; the ShedLock jobs retry as often, so both waiters look equally often. */
    static final Duration RETRY = Duration.ofSeconds(1);
    /** After both contenders are up: a few polls, in which a standby finds the owner's address accepting. */
    private static final Duration SETTLE = Duration.ofSeconds(2);

    private static final Map<String, BiFunction<Path, Database, Contest>> CONTESTS = new LinkedHashMap<>();

    static {
        CONTESTS.put("standby-fast", (dir, db) -> new StandbyContest(dir, db, "standby_fast",
                Duration.ofSeconds(1), Duration.ofSeconds(3), RETRY, true));
        CONTESTS.put("standby-fast-no-ff", (dir, db) -> new StandbyContest(dir, db, "standby_fast_noff",
                Duration.ofSeconds(1), Duration.ofSeconds(3), RETRY, false));
        CONTESTS.put("shedlock-extend", (dir, db) -> new ShedLockContest(dir, db, "shedlock_extend", "manual", RETRY));
        CONTESTS.put("standby-default", (dir, db) -> new StandbyContest(dir, db, "standby_default",
                Duration.ofSeconds(2), Duration.ofSeconds(5), RETRY, true));
        CONTESTS.put("standby-default-no-ff", (dir, db) -> new StandbyContest(dir, db, "standby_default_noff",
                Duration.ofSeconds(2), Duration.ofSeconds(5), RETRY, false));
        CONTESTS.put("shedlock-keepalive", (dir, db) -> new ShedLockContest(dir, db, "shedlock_keepalive", "keepalive", RETRY));
    }

    /** Which ShedLock contest is compared with which Standby ones. */
    private static final Map<String, List<String>> PAIRS = Map.of(
            "shedlock-extend", List.of("standby-fast", "standby-fast-no-ff"),
            "shedlock-keepalive", List.of("standby-default", "standby-default-no-ff"));

    @Spec
    CommandSpec spec;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "10",
            description = "Kills of the holder per contest (default: ${DEFAULT-VALUE}; the keep-alive contest, the slowest, takes 25 to 45 s a round).")
    int rounds;

    @Option(names = "--window", paramLabel = "DURATION", defaultValue = "30s", converter = DurationOption.class,
            description = "How long commands are counted, holder and waiter settled (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Option(names = "--contests", paramLabel = "NAME", split = ",",
            description = "Which to run (default: all): standby-fast, standby-fast-no-ff, shedlock-extend, standby-default, "
                    + "standby-default-no-ff, shedlock-keepalive.")
    List<String> only;

    /** One contest's numbers. */
    record Result(Contest contest, Stats takeovers, double holderRate, double waiterRate, String holderKinds, String waiterKinds) {
    }

    @Override
    public Integer call() throws Exception {
        if (rounds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "invalid --rounds " + rounds + ": must be at least 1");
        }
        if (window.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "invalid --window " + window.toMillis() + "ms: must be at least 1s");
        }
        List<String> names = only == null ? List.copyOf(CONTESTS.keySet()) : only;
        for (String name : names) {
            if (!CONTESTS.containsKey(name)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown contest '" + name + "': use one of "
                        + String.join(", ", CONTESTS.keySet()));
            }
        }
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "standby-bench-shedlock-");
        System.out.println("shedlock: " + names.size() + " contests at once, " + rounds + " kills each, commands over "
                + window.toSeconds() + " s; logs in " + dir);
        System.out.println("machine at start: " + Machine.describe());
        List<Contest> contests = new ArrayList<>();
        Database database = Database.inMemory(dir);
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
                    throw new IllegalStateException(names.get(i) + ": " + e.getCause().getMessage(), e.getCause());
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
        ChildJvm holder = contest.holder(Duration.ofMinutes(2));
        Bench.sleep(SETTLE);
        ChildJvm waiter = contest.other(holder);
        CommandCount holderFrom = contest.commands(holder);
        CommandCount waiterFrom = contest.commands(waiter);
        Bench.sleep(window);
        CommandCount holderTo = contest.commands(holder);
        CommandCount waiterTo = contest.commands(waiter);
        if (contest.holder(Duration.ofSeconds(10)) != holder) {
            throw new IllegalStateException("the holder changed while commands were counted");
        }
        List<Long> takeovers = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            takeovers.add(killTheHolder(contest));
            System.out.printf(Locale.ROOT, "%s: round %d of %d, taken over %d ms after kill -9%n", contest.name(), round, rounds,
                    takeovers.getLast());
        }
        return new Result(contest, Stats.of(takeovers), holderTo.ratePerSecond(holderFrom), waiterTo.ratePerSecond(waiterFrom),
                holderTo.breakdown(holderFrom), waiterTo.breakdown(waiterFrom));
    }

    /** Kills the holder at a random point of its renewal period; milliseconds until the database shows another. */
    private static long killTheHolder(Contest contest) {
        ChildJvm holder = contest.holder(contest.bound().plusMinutes(1));
        Bench.sleep(SETTLE.plusMillis(ThreadLocalRandom.current().nextLong(contest.renewal().toMillis())));
        long before = contest.holding();
        long killed = System.nanoTime();
        holder.kill9();
        Waits.until(contest.name() + ": a takeover after kill -9", contest.bound(), Duration.ofMillis(10), () -> {
            long now = contest.holding();
            return now != -1 && now != before;
        });
        long took = (System.nanoTime() - killed) / 1_000_000;
        contest.replace(holder);
        return took;
    }

    private static void print(Map<String, Result> results) {
        System.out.println();
        System.out.println("| contest | takeover after kill -9 | holder, commands/s | waiter, commands/s |");
        System.out.println("| --- | --- | --- | --- |");
        results.values().forEach(r -> System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.2f |%n",
                r.contest().name(), r.takeovers().summary(), r.holderRate(), r.waiterRate()));
        System.out.println();
        System.out.println("| ShedLock / Standby | takeover p50 | takeover max | holder commands | waiter commands |");
        System.out.println("| --- | --- | --- | --- | --- |");
        PAIRS.forEach((shedlock, standbys) -> {
            Result peer = results.get(shedlock);
            for (String standby : standbys) {
                Result ours = results.get(standby);
                if (peer != null && ours != null) {
                    System.out.printf(Locale.ROOT, "| %s / %s | %s | %s | %s | %s |%n", peer.contest().name(), ours.contest().name(),
                            ratio(peer.takeovers().p50(), ours.takeovers().p50()), ratio(peer.takeovers().max(), ours.takeovers().max()),
                            ratio(peer.holderRate(), ours.holderRate()), ratio(peer.waiterRate(), ours.waiterRate()));
                }
            }
        });
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
