package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The soak's growth judgement on synthetic samples: flat series pass, a steady climb is caught, and what is not a trend
 * (a process's own warm-up, one round's burst of commands, a small count's step, the events history) is not taken for
 * one. 60 rounds a minute apart, as in a 60-minute soak: first window minutes 5 to 15, last window the final 10.
 * Milliseconds to run.
 */
class SoakReportTest {

    private static final SoakReport.Windows HOUR = SoakReport.Windows.forSpan(Duration.ofMinutes(60));
    private static final long MINUTE = 60_000;

    private final List<SoakSample> samples = new ArrayList<>();

    /** {@code value(round)} for each of 3 nodes, rounds 1 to 61 (minute 0 to 60). */
    private void perNode(String measure, IntToDoubleFunction value) {
        for (int round = 1; round <= 61; round++) {
            for (int node = 1; node <= 3; node++) {
                samples.add(new SoakSample(
                        round, round * MINUTE, "node-" + node, node, true, measure, value.applyAsDouble(round)));
            }
        }
    }

    private void cluster(String measure, IntToDoubleFunction value) {
        for (int round = 1; round <= 61; round++) {
            samples.add(new SoakSample(
                    round, round * MINUTE, SoakSample.CLUSTER, 0, true, measure, value.applyAsDouble(round)));
        }
    }

    private Map<String, SoakReport.Row> judge() {
        return SoakReport.judge(samples, HOUR).stream()
                .collect(Collectors.toMap(r -> r.measure().name(), r -> r));
    }

    @Test
    void windowsScaleWithShortRunsAndStayTenMinutesInLongOnes() {
        assertEquals(new SoakReport.Windows(Duration.ofMinutes(5), Duration.ofMinutes(10)), HOUR);
        assertEquals(
                new SoakReport.Windows(Duration.ofSeconds(25), Duration.ofSeconds(50)),
                SoakReport.Windows.forSpan(Duration.ofMinutes(5)));
        assertEquals(HOUR, SoakReport.Windows.forSpan(Duration.ofHours(3)));
    }

    @Test
    void flatSeriesAreOkAndASteadyClimbGrows() {
        perNode(SoakMeasure.HEAP, r -> 20 + (r % 3));
        perNode(SoakMeasure.RSS, r -> 150 + r);
        cluster("docs:owners", r -> 6 + r / 4);
        Map<String, SoakReport.Row> rows = judge();

        assertEquals("OK", rows.get(SoakMeasure.HEAP).status());
        assertEquals(11, rows.get(SoakMeasure.HEAP).firstRounds(), "minutes 5 to 15, both ends' rounds included");
        assertEquals(11, rows.get(SoakMeasure.HEAP).lastRounds());
        // 150 + r: about 160 in the first window, 205 in the last, +28 %.
        assertEquals("GROWS", rows.get(SoakMeasure.RSS).status());
        assertTrue(
                rows.get(SoakMeasure.RSS).change() > 0.25,
                "change " + rows.get(SoakMeasure.RSS).change());
        assertEquals("GROWS", rows.get("docs:owners").status(), "about 8.5 to 19 owner documents");
        assertTrue(SoakReport.anyGrows(List.copyOf(rows.values())));
    }

    @Test
    void aRestartedNodesOwnWarmUpIsLeftOut() {
        perNode(SoakMeasure.HEAP, r -> 20);
        // node-2 restarted at minute 55: its new process reads 60 MB before its first minute is over.
        samples.add(new SoakSample(55, 55 * MINUTE + 1, "node-2", 99, false, SoakMeasure.HEAP, 60));
        samples.add(new SoakSample(56, 56 * MINUTE + 1, "node-2", 99, false, SoakMeasure.HEAP, 60));

        assertEquals("OK", judge().get(SoakMeasure.HEAP).status());
        assertEquals(0.0, judge().get(SoakMeasure.HEAP).change());
    }

    @Test
    void oneRoundsBurstOfCommandsIsNotATrend() {
        // Takeovers at minutes 52 and 58: the new owner fences and loads its robots, three times the usual commands.
        perNode(SoakMeasure.COMMANDS, r -> r == 52 || r == 58 ? 18 : 6);

        SoakReport.Row commands = judge().get(SoakMeasure.COMMANDS);
        assertEquals(6.0, commands.last(), "the median round");
        assertEquals("OK", commands.status());
    }

    @Test
    void smallCountsGetTheirSlackAndTheEventsHistoryIsOnlyReported() {
        perNode(SoakMeasure.THREADS, r -> r < 30 ? 40 : 44);
        perNode("map:gone_owners", r -> r < 30 ? 1 : 3);
        cluster("docs:events", r -> 100 * r);
        Map<String, SoakReport.Row> rows = judge();

        assertEquals("OK", rows.get(SoakMeasure.THREADS).status(), "+4 threads: 10 % of 40 plus 2");
        assertEquals("OK", rows.get("map:gone_owners").status(), "1 to 3 entries: within the slack of 2");
        assertEquals("info", rows.get("docs:events").status());
        assertFalse(rows.get("docs:events").grows());
        assertFalse(SoakReport.anyGrows(List.copyOf(rows.values())));
    }

    @Test
    void theTableTheCsvAndThePlotShowEveryMeasure() {
        perNode(SoakMeasure.HEAP, r -> 20);
        perNode(SoakMeasure.FDS, r -> 30 + r);
        cluster("docs:slots", r -> 3);
        List<SoakReport.Row> rows = SoakReport.judge(samples, HOUR);

        List<String> table = SoakReport.table(rows, HOUR);
        assertEquals(2 + 3, table.size(), String.join("\n", table));
        assertTrue(table.get(2).startsWith("  heap_mb"), "the process's figures first: " + table.get(2));
        assertTrue(table.stream().anyMatch(l -> l.contains("fds") && l.contains("GROWS")), String.join("\n", table));
        assertEquals(samples.get(4), SoakSample.parse(samples.get(4).csv()));
        String svg = SoakPlot.svg(samples, rows, HOUR);
        assertTrue(svg.startsWith("<svg"), svg);
        // Per measure: the round's figure, and one thin line per node process (none for the cluster's).
        assertEquals((1 + 3) + (1 + 3) + 1, svg.split("<polyline").length - 1);
        assertTrue(svg.contains("fds  +"), "the title says the change");
    }
}
