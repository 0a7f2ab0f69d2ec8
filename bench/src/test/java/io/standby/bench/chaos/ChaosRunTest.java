package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short chaos run of {@code mvn verify}: 4 node processes, 2 slots, 6 ledger robots, 25 s of faults from a fixed
 * seed, then the verdict, which must find no violation. The nodes run watch links, as every node does by default, here
 * with a 400 ms watch lease (their own default needs a 500 ms heartbeat), so the link-deadline row is judged. Seed
 * 312348 draws a release, a kill -9, a cut, a move, a long SIGSTOP, a SIGTERM and two short SIGSTOPs of an owner past
 * its links' deadline (one ends in a takeover by the link, the other in a resume, on this machine), in about 35 s.
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
                null);
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
    }
}
