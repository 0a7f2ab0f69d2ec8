package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short chaos run of {@code mvn verify}: 4 node processes, 2 slots, 6 ledger robots and 4 counter robots, 25 s of
 * faults from a fixed seed, then the verdict, which must find no violation. The nodes run watch links, as every node
 * does by default, here with a 400 ms watch lease (their own default needs a 500 ms heartbeat), so the link-deadline
 * row is judged. Seed 312348 draws a release, a kill -9, a cut, a move, a long SIGSTOP, a SIGTERM and two short
 * SIGSTOPs of an owner past its links' deadline (one ends in a takeover by the link, the other in a resume, on this
 * machine), in about 35 s.
 *
 * <p>It is also the soak's ({@code bench soak}) short run: its {@link Sampler} reads every node every 5 s (without the
 * soak's forced GC: a jcmd per node and round took seconds on the loaded 2-core machine, and left one round in 25 s),
 * and every node must show a heap, RSS, threads, descriptors and its own maps, the collections must be counted, and
 * every counter robot must be counting at the end. {@link SoakRunTest} is the soak itself, off by default.
 */
class ChaosRunTest {

    @Test
    void noInvariantBreaksUnderSeededFaults(@TempDir Path dir) {
        Chaos.Settings settings = new Chaos.Settings(
                4,
                2,
                6,
                Duration.ofSeconds(25),
                312348,
                Chaos.timing(Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofMillis(200)),
                20,
                Duration.ofSeconds(60),
                true,
                new Cluster.Watch(true, Duration.ofMillis(400)),
                null,
                4,
                new Sampler.Settings(Duration.ofSeconds(5), Duration.ZERO, false));
        Chaos.Result result = new Chaos(settings, System.out).run(dir);

        assertTrue(result.verdict().passed(), String.join("\n", result.verdict().lines()));
        Set<Fault.Kind> kinds = EnumSet.noneOf(Fault.Kind.class);
        result.faults().forEach(f -> kinds.add(f.kind()));
        assertTrue(kinds.size() >= 4, "faults of only " + kinds);
        assertTrue(kinds.contains(Fault.Kind.FREEZE), "no short SIGSTOP: " + kinds);
        assertTrue(
                result.verdict().judged(Verdict.Violation.PAST_LINK_DEADLINE), "the link-deadline row was not judged");
        assertTrue(result.inputs() > 100, "only " + result.inputs() + " inputs");
        assertEquals(6 * result.inputs(), result.outputs(), "every robot has an output per input");
        assertEquals(List.of(), result.leftBehind(), "counter robots not counting at the end");
        assertSaneSamples(result.samples(), 4, 6 + 4, 2);
    }

    /**
     * Every node read at least once with a heap, RSS, threads and descriptors above 0 and its own maps' sizes; its
     * leases and runs among them; the robots and slots collections counted right.
     */
    static void assertSaneSamples(List<SoakSample> samples, int nodes, int robots, int slots) {
        Map<String, List<SoakSample>> byNode = samples.stream()
                .filter(s -> !s.node().equals(SoakSample.CLUSTER))
                .collect(Collectors.groupingBy(SoakSample::node));
        assertEquals(nodes, byNode.size(), "nodes read: " + byNode.keySet());
        byNode.forEach((node, these) -> {
            for (String measure : List.of(SoakMeasure.HEAP, SoakMeasure.RSS, SoakMeasure.THREADS, SoakMeasure.FDS)) {
                assertTrue(
                        these.stream().anyMatch(s -> s.measure().equals(measure) && s.value() > 0),
                        node + " has no " + measure + " above 0");
            }
            assertTrue(
                    these.stream().anyMatch(s -> s.measure().equals(SoakMeasure.MAP + "leases")),
                    node + " reported no map sizes");
        });
        assertTrue(
                samples.stream().anyMatch(s -> s.measure().equals(SoakMeasure.COMMANDS) && s.value() > 0),
                "no commands counted");
        assertTrue(
                samples.stream()
                                .filter(s -> s.measure().equals(SoakMeasure.MAP + "robot_runs"))
                                .mapToDouble(SoakSample::value)
                                .max()
                                .orElse(0)
                        > 0,
                "no node said it runs robots");
        List<SoakSample> cluster = samples.stream()
                .filter(s -> s.node().equals(SoakSample.CLUSTER))
                .toList();
        assertTrue(
                cluster.stream().anyMatch(s -> s.measure().equals("docs:robots") && s.value() == robots),
                "robots not counted");
        assertTrue(
                cluster.stream().allMatch(s -> !s.measure().equals("docs:slots") || s.value() == slots),
                "slots miscounted");
        for (String collection : SoakMeasure.COLLECTIONS) {
            assertTrue(
                    cluster.stream().anyMatch(s -> s.measure().equals(SoakMeasure.DOCS + collection)),
                    collection + " not counted");
        }
    }
}
