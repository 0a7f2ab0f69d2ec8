package io.standby.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bench dbcost} at its smallest: three slots, one robot, a 5 s window (25 to 35 s in all with other builds on
 * the two cores, with three JVMs of its own beside the tests' shared database). The rates' bounds are generous; the
 * targets are in docs/BENCHMARKS.md.
 */
class DbCostBenchTest {

    private static final Pattern ROW = Pattern.compile(
            "^\\| 3 \\| 1 \\| 1 \\| (\\d+\\.\\d\\d) \\| (\\d+\\.\\d\\d) \\| (\\d+\\.\\d\\d) \\|$", Pattern.MULTILINE);

    @Test
    void anOwnerRenewsAndReadsSlotsAtAboutOneAndAHalfCommandsASecondAndAStandbyOnlyReads() {
        ToolRun run = ToolRun.onSharedServer("dbcost", "--slots", "3", "--robots", "1", "--window", "5s");
        assertEquals(0, run.exitCode(), run.err());
        Matcher row = ROW.matcher(run.out());
        assertTrue(row.find(), "a table row for 3 slots and 1 robot in:\n" + run.out());
        double owner = Double.parseDouble(row.group(1));
        double standby = Double.parseDouble(row.group(2));
        // At the default timing an owner polls every 1 s and renews every 2 s: 1.5 a second, give or take a command.
        assertTrue(owner >= 0.8 && owner <= 4.0, String.format(Locale.ROOT, "owner %.2f/s", owner));
        assertTrue(standby >= 0.4 && standby <= 3.0, String.format(Locale.ROOT, "standby %.2f/s", standby));
        // Counted by the proxy in front of the standby: its polls' replies (a few hundred bytes each), not nothing.
        double read = Double.parseDouble(row.group(3));
        assertTrue(read > 0.05 && read <= 20, String.format(Locale.ROOT, "standby read %.2f KB/s", read));
        String breakdown = run.out()
                .lines()
                .filter(l -> l.startsWith("3 slots, 1 owned, 1 robots: owner sent"))
                .findFirst()
                .orElseThrow();
        String[] roles = breakdown.split("; standby sent ");
        assertTrue(roles[0].contains("update slots"), "the owner renewed its slot: " + breakdown);
        assertFalse(roles[1].contains("update slots"), "the standby renewed nothing: " + breakdown);
    }

    @Test
    void aWindowOfNothingIsRefusedInOneLine() {
        ToolRun run = ToolRun.of("dbcost", "--window", "0s");
        assertEquals(2, run.exitCode());
        assertEquals(
                "bench dbcost: invalid --window 0ms: must be at least 1s (see --help)",
                run.err().strip());
    }

    @Test
    void anOwnerOfMoreSlotsThanThereAreIsRefusedInOneLine() {
        ToolRun run = ToolRun.of("dbcost", "--slots", "3,300", "--owned", "5");
        assertEquals(2, run.exitCode());
        assertEquals(
                "bench dbcost: invalid --owned 5: must be at least 1 and at most the fewest --slots (see --help)",
                run.err().strip());
    }
}
