package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.bench.DurationOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak ({@code bench soak}) from the suite, as its command runs it (6 nodes, 3 slots, 30 ledger and 30 counter
 * robots, the nodes' default timing, watch links on, a fault every 3 minutes), for as long as
 * {@code -Dstandby.soak.duration} says; off without it, since even 5 minutes is far beyond the suite's budget (the
 * short run of {@code mvn verify} is {@link ChaosRunTest}, which samples too). For example:
 *
 * <pre>{@code
 * mvn -B -o -pl bench -am test -Dtest=SoakRunTest -Dsurefire.failIfNoSpecifiedTests=false -Dstandby.soak.duration=5m
 * }</pre>
 *
 * It fails on a violation, a robot left behind or a measure that grew past +10 % ({@link SoakReport}); the samples, the
 * table and the plot are in the test's temporary directory, printed at the end.
 */
@EnabledIfSystemProperty(named = "standby.soak.duration", matches = ".+")
class SoakRunTest {

    @Test
    void nothingBreaksOrGrowsUnderLightChurn(@TempDir Path dir) {
        Duration duration = new DurationOption().convert(System.getProperty("standby.soak.duration"));
        SoakReport.Windows windows = SoakReport.Windows.forSpan(duration);
        Chaos.Settings settings = new Chaos.Settings(
                6,
                3,
                30,
                duration,
                1,
                Chaos.timing(Duration.ofSeconds(2), Duration.ofSeconds(20), Duration.ofSeconds(1)),
                1,
                Duration.ofSeconds(180),
                true,
                Cluster.Watch.DEFAULT,
                Duration.ofMinutes(3),
                30,
                new Sampler.Settings(SoakCommand.defaultSample(duration), windows.nodeWarmUp(), true));
        Chaos.Result result = new Chaos(settings, System.out).run(dir);
        List<SoakReport.Row> rows = SoakReport.judge(result.samples(), windows);
        SoakReport.table(rows, windows).forEach(System.out::println);
        SoakReport.writeCsv(dir.resolve("samples.csv"), result.samples());
        SoakReport.writeSvg(dir.resolve("soak.svg"), result.samples(), rows, windows);
        System.out.println("Samples and plot: " + dir);

        assertTrue(result.verdict().passed(), String.join("\n", result.verdict().lines()));
        assertEquals(List.of(), result.leftBehind(), "counter robots not counting at the end");
        ChaosRunTest.assertSaneSamples(result.samples(), 6, 60, 3);
        assertEquals(
                List.of(),
                rows.stream()
                        .filter(SoakReport.Row::grows)
                        .map(r -> r.measure().name())
                        .toList(),
                "measures that grew past +10 %");
    }
}
