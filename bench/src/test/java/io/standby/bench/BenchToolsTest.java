package io.standby.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.SlotTiming;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each of these tools once, at its smallest, so that they do not rot between benchmark runs: real node processes, and
 * the embedded database in a process of its own that the tools share ({@link SharedServer}, given as {@code --mongo},
 * emptied before each run). Only generous correctness bounds are asserted; the numbers belong in docs/BENCHMARKS.md.
 * 100 to 115 s in all with other builds on the two cores (load 5 to 8, 2026-11-29), the takeover (at the defaults, with
 * links) about 30 s of it.
 */
class BenchToolsTest {

    /** {@code bench TOOL ARGS...} on the tests' shared database process; its output, once it exited 0. */
    private static String run(String tool, String... args) {
        ToolRun run = ToolRun.onSharedServer(tool, args);
        assertEquals(
                0,
                run.exitCode(),
                "bench " + tool + " " + String.join(" ", args) + " failed:\n" + run.out() + run.err());
        return run.out();
    }

    @Test
    void takeoverTimesTheClaimAfterAKillByTheDatabasesClockAndSaysHowTheSlotWasTaken() {
        // fast: no links by default below a 500 ms heartbeat, so fast failover; defaults: links on, since issue 34.
        String out = run("takeover", "--rounds", "1", "--profiles", "fast,defaults", "--watch-links", "on");
        Matcher round = Pattern.compile("round \\d+: kill -9 of \\d+, "
                        + "claimed by 127\\.0\\.0\\.1:\\d+ (-?\\d+) ms later \\(([a-z-]+)\\)")
                .matcher(out);
        List<String> hows = new ArrayList<>();
        while (round.find()) {
            long ms = Long.parseLong(round.group(1));
            hows.add(round.group(2));
            // After the kill, and well within the lease path's bound (lease + poll + slack for a loaded machine).
            assertTrue(ms > 0 && ms < 10_000, "takeover " + ms + " ms:\n" + out);
            if (round.group(2).equals("link")) {
                // About 1.1 watch leases (1 s); the late mark alone (2 heartbeats, 4 s) could not be this early.
                assertTrue(ms < 4_000, "a takeover by the link " + ms + " ms after the kill:\n" + out);
            }
        }
        assertEquals(2, hows.size(), out);
        // fast: no link to take it by (owner-gone, or expired on a loaded machine); defaults: the link.
        assertTrue(hows.get(0).equals("owner-gone") || hows.get(0).equals("expired"), hows.get(0) + ":\n" + out);
        assertEquals("link", hows.get(1), out);
        assertTrue(
                out.contains("| fast (heartbeat 200ms, lease 600ms, poll 100ms), fast failover on, no watch links (the "
                        + "default below a "
                        + "500ms heartbeat) | 1 | "),
                out);
        assertTrue(
                out.contains("| defaults (heartbeat 2000ms, lease " + SlotTiming.DEFAULT_LEASE.toMillis()
                        + "ms, poll 1000ms), fast failover on, watch links by default (watch lease 1000ms) | 1"
                        + " | "),
                out);
        assertTrue(out.contains(" | link 1 | p50 <= 1500 ms, max <= 2500 ms: "), out);
    }

    @Test
    void floodAtAnOwnersWatchPortCostsItNothing() {
        String out = run("flood", "--duration", "2s", "--rate", "200", "--settle", "3s");
        for (String verdict : List.of(
                "slot kept",
                "nothing paused",
                "threads flat",
                "heap flat",
                "open files flat",
                "the standby's link",
                "strangers cost no renewal")) {
            assertTrue(out.contains("verdict " + verdict + ": OK: "), verdict + ":\n" + out);
        }
        assertTrue(out.contains("\nverdict: OK\n"), out);
        Matcher made = Pattern.compile("flood: (\\d+) of 400 connects made").matcher(out);
        assertTrue(made.find(), out);
        assertTrue(Long.parseLong(made.group(1)) >= 380, "nearly all connects made:\n" + out);
        // The slow peers' bogus hellos were refused and counted (an HTTP request and a forged proof at once).
        Matcher refused = Pattern.compile("; (\\d+) strangers refused").matcher(out);
        assertTrue(refused.find() && Long.parseLong(refused.group(1)) > 0, out);
        // Sampled before, every second of the flood, after it settled and after a GC.
        Matcher sample = Pattern.compile(
                        "(?m)^\\| (before(, after a GC)?|1 s|2 s|end \\+ 3 s|after( a GC)?) \\| \\d+ \\(\\d+\\) \\|")
                .matcher(out);
        int samples = 0;
        while (sample.find()) {
            samples++;
        }
        assertEquals(5, samples, out);
    }

    @Test
    void handoverMeasuresFromTheLastRobotStopToTheFirstStart() {
        String out = run("handover", "--rounds", "1", "--robots", "3", "--profiles", "fast");
        List<Long> gaps = numbers(out, "3 robots started on \\d+ (-?\\d+) ms after the last stop");
        assertEquals(1, gaps.size(), out);
        gaps.forEach(ms -> assertTrue(ms >= 0 && ms < 10_000, "gap " + ms + " ms:\n" + out));
    }

    @Test
    void handoverByDrainMeasuresFromTheRequestToTheClaimElsewhere() {
        String out = run("handover", "--how", "drain", "--rounds", "1", "--robots", "3", "--profiles", "fast");
        List<Long> claims =
                numbers(out, "drain request to \\d+ \\(exit after \\d+ ms, claimed elsewhere after (-?\\d+) ms\\)");
        assertEquals(1, claims.size(), out);
        // Seen at the owner's next poll, not at its registry write ten heartbeats (2 s) later, after which the
        // release and the claim elsewhere would still have to come: under 2 s tells the two apart on any load
        // (1,121 ms was seen at load 7, where a 1 s bound failed).
        claims.forEach(ms -> assertTrue(ms >= 0 && ms < 2_000, "claimed " + ms + " ms after the request:\n" + out));
    }

    @Test
    void pauseStopsTheRobotsOfAFrozenOwnerAndRunsThemAgainUnderTheSameEpoch() {
        String out = run("pause", "--rounds", "2", "--robots", "3", "--profiles", "fast");
        Matcher round = Pattern.compile(
                        "round \\d+: robots gone (-?\\d+) ms after the freeze.*all 3 robots running (-?\\d+) ms later;"
                                + " slot with (127\\.0\\.0\\.1:\\d+) at epoch (\\d+)\n")
                .matcher(out);
        List<String> kept = new ArrayList<>();
        while (round.find()) {
            long gone = Long.parseLong(round.group(1));
            long running = Long.parseLong(round.group(2));
            // Paused during the 600 ms freeze (the owner's deadline is 360 ms after its last acknowledged
            // send), and running again once the link is back; slack for a loaded machine.
            assertTrue(gone >= 0 && gone < 10_000, "gone " + gone + " ms after the freeze:\n" + out);
            assertTrue(
                    running >= 0 && running < 10_000, "running " + running + " ms after the link came back:\n" + out);
            kept.add(round.group(3) + " at epoch " + round.group(4));
        }
        assertEquals(2, kept.size(), "two rounds that paused and ran again:\n" + out);
        assertEquals(kept.getFirst(), kept.getLast(), "the same owner and epoch throughout:\n" + out);
        assertTrue(
                out.contains("| 600 ms | 2 | 2 / 2 | 2 |"),
                "2 paused, 2 ran again, 2 kept the slot and epoch:\n" + out);
        assertTrue(out.contains("verdict fast: OK: 2 of 2 freezes paused the robots"), out);
    }

    @Test
    void stormFillsEverySlotOnceWithEachStrategy() {
        String out = run("storm", "--nodes", "6", "--leave", "0", "--no-warm-up");
        for (String strategy : List.of("standby, spread", "standby, one port", "naive: first free slot")) {
            Matcher filled = Pattern.compile(
                            Pattern.quote(strategy) + ".*: filled in [0-9.]+ s, \\d+ rounds, (\\d+) claims won")
                    .matcher(out);
            assertTrue(filled.find(), strategy + ":\n" + out);
            assertEquals(6, Long.parseLong(filled.group(1)), "one win per slot and node: " + strategy);
        }
    }

    @Test
    void stormWithMoreSlotsThanNodesMovesOnlyTheLeaversSlots() {
        String out = run("storm", "--nodes", "6", "--slots", "30", "--max-slots", "8", "--leave", "2", "--no-warm-up");
        Matcher filled = Pattern.compile("standby, spread: filled in [0-9.]+ s, \\d+ rounds, (\\d+) claims won")
                .matcher(out);
        assertTrue(filled.find(), out);
        assertTrue(Long.parseLong(filled.group(1)) >= 30, "every slot won at least once:\n" + out);
        assertTrue(
                !out.contains("one port") && !out.contains("naive"),
                "only the spread layout when there are more slots than nodes:\n" + out);
        Matcher left = Pattern.compile("leave: 2 nodes stop gracefully, holding (\\d+) slots; 4 stay\n")
                .matcher(out);
        assertTrue(left.find(), out);
        int held = Integer.parseInt(left.group(1));
        assertTrue(held > 0, "the leavers are nodes that hold slots:\n" + out);
        // Exactly the leavers' slots moved, and none of the stayers' was lost on the way.
        assertTrue(out.contains("leave: every slot owned again in "), out);
        assertTrue(out.contains(", " + held + " of " + held + " slots moved, 0 of the stayers' slots lost, "), out);
        assertTrue(out.contains("| 2 (4) | " + held + " | "), out);
    }

    @Test
    void stormRefusesTooLittleRoomForTheSlotsAfterTheLeave() {
        ToolRun run = ToolRun.of("storm", "--nodes", "10", "--slots", "100", "--max-slots", "10");
        assertEquals(1, run.exitCode());
        assertEquals(
                "bench storm: --max-slots 10 leaves the 9 nodes that stay room for only 90 of 100 slots: raise it, "
                        + "or use fewer --leave",
                run.err().strip());
    }

    @Test
    void badInputIsOneLineNamingTheValue() {
        ToolRun zero = ToolRun.of("takeover", "--rounds", "0");
        assertEquals(1, zero.exitCode());
        assertEquals("bench takeover: --rounds 0 must be at least 1", zero.err().strip());
        ToolRun slow = ToolRun.of("takeover", "--profiles", "slow");
        assertTrue(slow.exitCode() != 0);
        assertEquals(
                "bench takeover: unknown profile 'slow': use defaults, fast or long",
                slow.err().strip());
        ToolRun links = ToolRun.of("takeover", "--watch-links", "maybe");
        assertEquals(1, links.exitCode());
        assertEquals(
                "bench takeover: unknown --watch-links 'maybe': use on or off",
                links.err().strip());
        ToolRun malformed = ToolRun.of("chaos", "--duration", "5x");
        assertEquals(2, malformed.exitCode());
        assertEquals(
                "bench chaos: Invalid value for option '--duration': invalid duration '5x': use e.g. 500ms, 30s, 2m "
                        + "(see --help)",
                malformed.err().strip());
    }

    private static List<Long> numbers(String out, String regex) {
        Matcher m = Pattern.compile(regex).matcher(out);
        List<Long> found = new ArrayList<>();
        while (m.find()) {
            found.add(Long.parseLong(m.group(1)));
        }
        return found;
    }
}
