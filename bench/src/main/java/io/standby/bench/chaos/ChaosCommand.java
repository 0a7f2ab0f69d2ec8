package io.standby.bench.chaos;

import io.standby.bench.DurationOption;
import io.standby.bench.Machine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench chaos}: ledger robots on real node processes under seeded faults, then a verdict on the invariants. Exit
 * code 0 only if no violation was found.
 */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        description =
                "Seeded faults (kill -9, SIGSTOP, SIGTERM, database restart, frozen links, release, move, rm+add, "
                        + "drain, "
                        + "stop+start, and with watch links short SIGSTOPs) "
                        + "on real node processes running ledger robots; then a verdict on the invariants. Exit 0 "
                        + "if none broke.")
public final class ChaosCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "6", description = "Node processes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--slots", defaultValue = "3", description = "Slots (default ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--robots", defaultValue = "30", description = "Ledger robots (default ${DEFAULT-VALUE}).")
    int robots;

    @Option(
            names = "--duration",
            defaultValue = "5m",
            converter = DurationOption.class,
            description = "How long faults go on (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "Seed of the fault schedule (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--heartbeat",
            defaultValue = "300ms",
            converter = DurationOption.class,
            description = "Node heartbeat (default ${DEFAULT-VALUE}).")
    Duration heartbeat;

    @Option(
            names = "--lease",
            defaultValue = "1s",
            converter = DurationOption.class,
            description = "Node lease (default ${DEFAULT-VALUE}).")
    Duration lease;

    @Option(
            names = "--poll",
            defaultValue = "200ms",
            converter = DurationOption.class,
            description = "Node poll (default ${DEFAULT-VALUE}).")
    Duration poll;

    @Option(names = "--rate", defaultValue = "20", description = "Inputs per second (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(
            names = "--fast-failover",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Nodes with fast failover, their default (default ${DEFAULT-VALUE}). --no-fast-failover starts "
                            + "them "
                            + "with it off, so that they stop their robots only near the lease's end: to show that "
                            + "the verdict's "
                            + "late-mark row can fail.")
    boolean fastFailover;

    @Option(
            names = "--watch-links",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Nodes with watch links, their default (default ${DEFAULT-VALUE}: a watch lease of 1s, or the "
                            + "heartbeat if shorter, and none below a 500ms heartbeat unless --watch-lease is given). "
                            + "--no-watch-links starts them without; the verdict's link-deadline row is then not "
                            + "judged.")
    boolean watchLinks;

    @Option(
            names = "--watch-lease",
            converter = DurationOption.class,
            paramLabel = "DURATION",
            description = "Nodes with this watch lease, shorter than the late mark (default: the nodes' own).")
    Duration watchLease;

    @Option(
            names = "--every",
            converter = DurationOption.class,
            paramLabel = "DURATION",
            description =
                    "The mean time between faults, each drawn from half of it to one and a half (default: 0.5 to 2 "
                            + "leases). A soak: --duration 30m --every 30s.")
    Duration every;

    @Option(
            names = "--catch-up",
            defaultValue = "120s",
            converter = DurationOption.class,
            description = "How long the quiet period waits for every robot to catch up (default ${DEFAULT-VALUE}).")
    Duration catchUp;

    @Override
    public Integer call() throws Exception {
        require(nodes >= 2, "--nodes " + nodes + " must be at least 2");
        require(slots >= 1 && slots < nodes, "--slots " + slots + " must be 1 to nodes - 1");
        require(robots >= 1, "--robots " + robots + " must be at least 1");
        require(rate >= 1 && rate <= 1000, "--rate " + rate + " must be 1-1000");
        require(watchLinks || watchLease == null, "--watch-lease needs watch links: drop --no-watch-links");
        require(every == null || !every.isNegative() && !every.isZero(), "--every must be positive");
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "standby-bench-chaos-");
        Chaos.Settings settings = new Chaos.Settings(
                nodes,
                slots,
                robots,
                duration,
                seed,
                Chaos.timing(heartbeat, lease, poll),
                rate,
                catchUp,
                fastFailover,
                new Cluster.Watch(watchLinks, watchLease),
                every);
        Duration watch = settings.watchLease();
        String links = watch == null
                ? (watchLinks ? "off (the nodes' default below a 500ms heartbeat)" : "OFF")
                : "on, watch lease " + watch.toMillis() + "ms" + (watchLease == null ? " (the nodes' default)" : "");
        System.out.printf(
                "bench chaos: %d nodes, %d slots, %d robots, %d s of faults%s, seed %d, --heartbeat %dms --lease %dms"
                        + " --poll %dms, %d inputs/s, fast failover %s, watch links %s; logs, data and records in %s%n",
                nodes,
                slots,
                robots,
                duration.toSeconds(),
                every == null ? "" : " about " + every.toSeconds() + " s apart",
                seed,
                heartbeat.toMillis(),
                lease.toMillis(),
                poll.toMillis(),
                rate,
                fastFailover ? "on" : "OFF",
                links,
                dir);
        System.out.println("machine at start: " + Machine.describe());
        boolean passed = new Chaos(settings, System.out).run(dir).verdict().passed();
        System.out.println("machine at end: " + Machine.describe());
        return passed ? 0 : 3;
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
