package io.standby.bench.chaos;

import io.standby.bench.DurationOption;
import io.standby.bench.Machine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench soak}: the chaos run ({@link Chaos}: the same faults, the same verdict) made long and light, at the
 * nodes' default timing with watch links on, with counter robots beside the ledger robots, and a {@link Sampler} that
 * records every node's heap, RSS, threads, file descriptors, commands per second and own map sizes, and the cluster's
 * collection sizes, every {@code --sample}. At the end: the verdict, a growth table of the last window against the
 * first ({@link SoakReport}), the samples as CSV and an SVG of them in the run's directory. Exit 0 only if no invariant
 * broke, no robot was left behind and (unless {@code --no-growth-check}) no measure grew past +10 %.
 */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        description = {
            "A long chaos run at the nodes' default timing with light churn (a fault every few minutes), ledger and"
                    + " counter robots, watch links on, that samples each node's heap after GC, RSS, threads, open"
                    + " fds, database commands/s and own map sizes, and the collections' sizes; then the chaos"
                    + " verdict and a growth table (last window's average against the first's), CSV and SVG.",
            "Exit 0 if no invariant broke, no robot was left behind and no measure grew past +10 %; 3 on a"
                    + " violation or a robot left behind, 4 on growth alone."
        })
public final class SoakCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--duration",
            defaultValue = "60m",
            converter = DurationOption.class,
            description = "How long the churn and the sampling go on (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--nodes", defaultValue = "6", description = "Node processes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--slots", defaultValue = "3", description = "Slots (default ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--ledgers", defaultValue = "30", description = "Ledger robots (default ${DEFAULT-VALUE}).")
    int ledgers;

    @Option(
            names = "--counters",
            defaultValue = "30",
            description = "Counter robots, one checkpoint a second each (default ${DEFAULT-VALUE}).")
    int counters;

    @Option(
            names = "--rate",
            defaultValue = "1",
            description = "Ledger inputs per second (default ${DEFAULT-VALUE}: the embedded database scans the input"
                    + " for each robot's poll, so a higher one makes the database, not the nodes, grow slower).")
    int rate;

    @Option(
            names = "--every",
            defaultValue = "3m",
            converter = DurationOption.class,
            description = "The mean time between faults (default ${DEFAULT-VALUE}).")
    Duration every;

    @Option(
            names = "--sample",
            converter = DurationOption.class,
            paramLabel = "DURATION",
            description = "The time between samples (default: 60s, or a thirtieth of a run shorter than 30m).")
    Duration sample;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Seed of the fault schedule (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--heartbeat",
            defaultValue = "2s",
            converter = DurationOption.class,
            description = "Node heartbeat (default ${DEFAULT-VALUE}, the nodes' own).")
    Duration heartbeat;

    @Option(
            names = "--lease",
            defaultValue = "20s",
            converter = DurationOption.class,
            description = "Node lease (default ${DEFAULT-VALUE}, the nodes' own).")
    Duration lease;

    @Option(
            names = "--poll",
            defaultValue = "1s",
            converter = DurationOption.class,
            description = "Node poll (default ${DEFAULT-VALUE}, the nodes' own).")
    Duration poll;

    @Option(
            names = "--force-gc",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Force a full GC in each node before reading its heap (jcmd GC.run; default"
                    + " ${DEFAULT-VALUE}). --no-force-gc reads the live data size after the last major GC instead.")
    boolean forceGc;

    @Option(
            names = "--growth-check",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Exit 4 if a measure grew past +10 % (default ${DEFAULT-VALUE}); --no-growth-check only"
                    + " reports it.")
    boolean growthCheck;

    @Option(
            names = "--catch-up",
            defaultValue = "180s",
            converter = DurationOption.class,
            description = "How long the quiet period waits for every robot to catch up (default ${DEFAULT-VALUE}).")
    Duration catchUp;

    @Override
    public Integer call() throws Exception {
        require(nodes >= 2, "--nodes " + nodes + " must be at least 2");
        require(slots >= 1 && slots < nodes, "--slots " + slots + " must be 1 to nodes - 1");
        require(ledgers >= 1, "--ledgers " + ledgers + " must be at least 1");
        require(counters >= 0, "--counters " + counters + " must be 0 or more");
        require(rate >= 1 && rate <= 1000, "--rate " + rate + " must be 1-1000");
        require(!duration.isZero(), "--duration must be positive");
        require(!every.isZero(), "--every must be positive");
        Duration every = sample != null ? sample : defaultSample(duration);
        require(!every.isZero(), "--sample must be positive");
        require(every.compareTo(duration) < 0, "--sample " + every.toSeconds() + "s must be shorter than --duration");
        SoakReport.Windows windows = SoakReport.Windows.forSpan(duration);
        Duration nodeWarmUp = windows.nodeWarmUp();
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "standby-bench-soak-");
        Chaos.Settings settings = new Chaos.Settings(
                nodes,
                slots,
                ledgers,
                duration,
                seed,
                Chaos.timing(heartbeat, lease, poll),
                rate,
                catchUp,
                true,
                Cluster.Watch.DEFAULT,
                this.every,
                counters,
                new Sampler.Settings(every, nodeWarmUp, forceGc));
        Duration watch = settings.watchLease();
        System.out.printf(
                "bench soak: %d nodes, %d slots, %d ledger and %d counter robots, %d min of faults about %d s apart,"
                        + " seed %d, --heartbeat %dms --lease %dms --poll %dms, %d inputs/s, watch links %s;"
                        + " samples every %d s (heap %s); a node process's first %d s are its warm-up; %s;"
                        + " logs, data, samples and plot in %s%n",
                nodes,
                slots,
                ledgers,
                counters,
                duration.toMinutes(),
                this.every.toSeconds(),
                seed,
                heartbeat.toMillis(),
                lease.toMillis(),
                poll.toMillis(),
                rate,
                watch == null ? "off" : "on, watch lease " + watch.toMillis() + "ms",
                every.toSeconds(),
                forceGc ? "used right after a jcmd GC.run" : "live data after the last major GC",
                nodeWarmUp.toSeconds(),
                windows.describe(),
                dir);
        System.out.println("machine at start: " + Machine.describe());
        Chaos.Result result = new Chaos(settings, System.out).run(dir);
        System.out.println("machine at end: " + Machine.describe());
        List<SoakReport.Row> rows = SoakReport.judge(result.samples(), windows);
        List<String> table = SoakReport.table(rows, windows);
        table.forEach(System.out::println);
        Path csv = dir.resolve("samples.csv");
        Path svg = dir.resolve("soak.svg");
        Path txt = dir.resolve("growth.txt");
        SoakReport.writeCsv(csv, result.samples());
        SoakReport.writeSvg(svg, result.samples(), rows, windows);
        Files.write(txt, table);
        System.out.println("Samples: " + csv);
        System.out.println("Plot: " + svg);
        System.out.println("Table: " + txt);
        boolean safe = result.verdict().passed() && result.leftBehind().isEmpty();
        boolean grows = SoakReport.anyGrows(rows);
        System.out.println("Soak: " + (result.verdict().passed() ? "no invariant broke" : "INVARIANTS BROKE") + ", "
                + (result.leftBehind().isEmpty() ? "no robot left behind" : "robots LEFT BEHIND") + ", "
                + (grows ? "a measure GREW past +10 %" : "no measure grew past +10 %"));
        if (!safe) {
            return 3;
        }
        return grows && growthCheck ? 4 : 0;
    }

    /** 60 s, or a thirtieth of a shorter run (at least 2 s): enough rounds for both windows. */
    static Duration defaultSample(Duration duration) {
        Duration thirtieth = duration.dividedBy(30);
        if (thirtieth.compareTo(Duration.ofSeconds(2)) < 0) {
            return Duration.ofSeconds(2);
        }
        return thirtieth.compareTo(Duration.ofSeconds(60)) > 0 ? Duration.ofSeconds(60) : thirtieth;
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
