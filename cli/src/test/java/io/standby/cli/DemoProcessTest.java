package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** {@code standby demo} as a real process: its story, its summary, its exit code, and no process left behind. */
class DemoProcessTest {

    private static final Pattern NODE_PID = Pattern.compile("node 127\\.0\\.0\\.1:\\d+: pid (\\d+)");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private static List<Long> nodePids(String output) {
        Matcher m = NODE_PID.matcher(output);
        List<Long> pids = new java.util.ArrayList<>();
        while (m.find()) {
            pids.add(Long.parseLong(m.group(1)));
        }
        return pids;
    }

    private static void assertNoneLeft(List<Long> pids, String output) {
        for (long pid : pids) {
            assertFalse(
                    ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                    "node pid " + pid + " is left:\n" + output);
        }
    }

    @Test
    void theWholeStoryEndsWithASummaryAndExitZeroAndLeavesNoProcess() throws Exception {
        try (ChildJvm demo = StandbyProcess.start(
                dir,
                "demo",
                "demo",
                "--nodes",
                "3",
                "--slots",
                "1",
                "--robots",
                "3",
                "--duration",
                // Shorter than the story, which it never cuts: the demo ends as soon as the story does.
                "1s",
                "--logs",
                dir.resolve("logs").toString())) {
            int exit = demo.awaitExit(Duration.ofSeconds(120));
            String output = demo.output();
            assertEquals(0, exit, output);
            List<Long> pids = nodePids(output);
            assertEquals(3, pids.size(), output);
            assertTrue(output.contains("npx -y mongosh@1 mongodb://127.0.0.1:"), "the mongosh line:\n" + output);
            assertTrue(
                    Pattern.compile("takeover after kill -9: \\d+ms \\(lease 5s\\)")
                            .matcher(output)
                            .find(),
                    output);
            assertTrue(
                    Pattern.compile("handover after SIGTERM: \\d+ms \\(poll 500ms\\)")
                            .matcher(output)
                            .find(),
                    output);
            assertTrue(output.contains("no counter ever went back ("), output);
            assertFalse(output.contains("Stopped before"), "the whole story, whatever --duration says:\n" + output);
            assertFalse(output.contains("\tat ") || output.contains(" ERROR ["), output);
            assertNoneLeft(pids, output);
        }
    }

    @Test
    void sigtermHalfwayStillEndsWithASummaryAndExitZeroAndLeavesNoProcess() throws Exception {
        try (ChildJvm demo = StandbyProcess.start(
                dir,
                "demo-term",
                "demo",
                "--nodes",
                "3",
                "--slots",
                "1",
                "--robots",
                "2",
                "--logs",
                dir.resolve("logs-term").toString())) {
            demo.awaitOutput("took slot-0 over", Duration.ofSeconds(120));
            demo.signal("TERM");
            int exit = demo.awaitExit(Duration.ofSeconds(60));
            String output = demo.output();
            assertEquals(0, exit, output);
            assertTrue(output.contains("== Summary"), output);
            assertTrue(output.contains("takeover after kill -9: "), output);
            assertTrue(output.contains("no counter ever went back ("), output);
            assertNoneLeft(nodePids(output), output);
        }
    }

    @Test
    void sizesThatLeaveNoStandbyForTheStoryAreUsageErrors() {
        CliRun run = CliRun.of("demo", "--nodes", "3", "--slots", "2");
        assertEquals(2, run.exitCode());
        assertTrue(run.errorLine().contains("invalid --slots 2: with --nodes 3 at most 1"), run.errorLine());
        assertEquals(2, CliRun.of("demo", "--nodes", "2").exitCode());
        assertEquals(2, CliRun.of("demo", "--robots", "0").exitCode());
    }
}
