package io.standby.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bench}: the benchmarks and the chaos suite, each a subcommand that starts what it needs on 127.0.0.1 (the
 * embedded database and node processes), prints its numbers, and stops everything it started. Run it with
 * {@code ./bench TOOL --help}; docs/BENCHMARKS.md has the results and commands.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Benchmarks and the chaos suite of Standby, on real processes on 127.0.0.1.",
        subcommands = {
            CommandLine.HelpCommand.class,
            TakeoverBench.class,
            HandoverBench.class,
            PauseBench.class,
            StormBench.class,
            DbCostBench.class,
            ScaleBench.class,
            FloodBench.class,
            io.standby.bench.peer.ShedLockBench.class,
            io.standby.bench.chaos.ChaosCommand.class,
            io.standby.bench.chaos.SoakCommand.class
        })
public final class Bench implements Runnable {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with every tool, and errors reported as one line. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Bench());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("bench " + line.getCommandName() + ": " + e.getMessage());
            return 1;
        });
        // One line naming the bad value, not the whole usage: --help has that.
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine line = e.getCommandLine();
            line.getErr().println("bench " + line.getCommandName() + ": " + e.getMessage() + " (see --help)");
            return 2;
        });
        return cli;
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    /** A fresh directory for one run's logs, kept afterwards so that a surprising number can be explained. */
    static Path runDirectory(String tool) {
        try {
            Path base = Path.of(System.getProperty("java.io.tmpdir"));
            return Files.createTempDirectory(base, "standby-bench-" + tool + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sleeps, or fails if interrupted: a bench stops at the first surprise. */
    public static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
