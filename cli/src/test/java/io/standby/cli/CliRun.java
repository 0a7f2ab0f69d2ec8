package io.standby.cli;

import io.standby.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import picocli.CommandLine;

/** Runs the command line in this JVM and captures what it prints. */
record CliRun(int exitCode, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        // As StandbyCli.run builds it: with only the subcommands the arguments name.
        CommandLine cli = StandbyCli.commandLine(args);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Runs {@code args} against the test database {@code db}, adding its {@code --mongo} and {@code --db}. */
    static CliRun against(String db, String... args) {
        String[] all = Arrays.copyOf(args, args.length + 4);
        all[args.length] = "--mongo";
        all[args.length + 1] = TestMongo.uri();
        all[args.length + 2] = "--db";
        all[args.length + 3] = db;
        return of(all);
    }

    /** Standard error is exactly one line. */
    String errorLine() {
        String trimmed = err.strip();
        if (trimmed.isEmpty() || trimmed.contains("\n")) {
            throw new AssertionError("expected exactly one line on standard error, got:\n" + err);
        }
        return trimmed;
    }
}
