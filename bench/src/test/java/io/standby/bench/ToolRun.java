package io.standby.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** One run of a bench tool in this JVM: its exit code, what it printed, and its one-line errors. */
record ToolRun(int exitCode, String out, String err) {

    /**
     * {@code bench TOOL --mongo URI ARGS...} on the tests' shared database process, emptied first: for the tools that
     * would otherwise start one of their own.
     */
    static ToolRun onSharedServer(String tool, String... args) {
        List<String> all = new ArrayList<>(List.of(tool, "--mongo", SharedServer.emptied()));
        all.addAll(List.of(args));
        return of(all.toArray(String[]::new));
    }

    static ToolRun of(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        // The tools print with System.out; echoed, so that a slow run can be followed in the test's output.
        System.setOut(new PrintStream(new TeeStream(captured, original), true, StandardCharsets.UTF_8));
        try {
            CommandLine cli = Bench.commandLine();
            cli.setErr(new PrintWriter(err, true));
            int code = cli.execute(args);
            return new ToolRun(code, captured.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(original);
        }
    }

    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream first;
        private final java.io.OutputStream second;

        TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }
}
