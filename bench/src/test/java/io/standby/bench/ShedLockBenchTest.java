package io.standby.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bench shedlock} with one kill each of Standby at its defaults (no option: watch links on) and ShedLock
 * extending a 3 s lock every second (25 to 45 s with other builds on the two cores, with four JVMs of its own beside
 * the tests' shared database). Checks that it completes and reports numbers within generous bounds; the keep-alive
 * contest takes 15 to 30 s a kill by its design, so it is left to the tool's own runs.
 */
class ShedLockBenchTest {

    private static final Pattern ROW = Pattern.compile(
            "^\\| (.+?) \\| n=1 p50 (\\d+) ms, p99 \\d+ ms, max \\d+ ms \\| ([^|]+) \\| (\\d+\\.\\d\\d) \\| "
                    + "(\\d+\\.\\d\\d) \\|$",
            Pattern.MULTILINE);

    @Test
    void bothTakeAKilledHoldersSlotOverWithinTheirLeaseAndReportTheirCommands() {
        ToolRun run = ToolRun.onSharedServer(
                "shedlock", "--rounds", "1", "--window", "3s", "--contests", "standby-default,shedlock-extend");
        assertEquals(0, run.exitCode(), run.err());
        Matcher row = ROW.matcher(run.out());
        int rows = 0;
        while (row.find()) {
            rows++;
            String contest = row.group(1);
            long takeover = Long.parseLong(row.group(2));
            double holder = Double.parseDouble(row.group(4));
            double waiter = Double.parseDouble(row.group(5));
            // A lease of 3 or 5 s and a 1 s retry: over by 6 s after the last renewal; 15 s leaves room for a loaded
            // machine.
            assertTrue(takeover > 0 && takeover < 15_000, contest + ": taken over after " + takeover + " ms");
            assertTrue(holder > 0, contest + ": the holder renewed");
            // Both waiters look once a second.
            assertTrue(waiter >= 0.3 && waiter <= 3, contest + ": waiter " + waiter + "/s");
            // Standby says how it took the slot: the standby's watch link, up before the kill; ShedLock does not say.
            assertEquals(
                    contest.equals("standby defaults") ? "link 1" : "-",
                    row.group(3).strip(),
                    contest);
        }
        assertEquals(2, rows, "a row for each contest in:\n" + run.out());
        assertTrue(run.out().contains("| shedlock extend 1s/3s / standby defaults | "), "the ratios:\n" + run.out());
        assertTrue(
                run.out().contains("target (issue 34): standby defaults p50 <= 0.3 x shedlock extend 1s/3s p50: "),
                run.out());
        assertTrue(run.out().contains("standby defaults: standby node with no option: its defaults"), run.out());
    }

    @Test
    void anUnknownContestIsNamedInOneLine() {
        ToolRun run = ToolRun.of("shedlock", "--contests", "zookeeper");
        assertEquals(2, run.exitCode());
        assertTrue(
                run.err().startsWith("bench shedlock: unknown contest 'zookeeper': use one of standby-fast,"),
                run.err());
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run.err());
    }
}
