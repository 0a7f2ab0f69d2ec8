package io.standby.bench.chaos;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The short chaos run of {@code mvn verify}: 3 node processes, 2 slots, 6 ledger robots, 25 s of faults
 * from a fixed seed, then the verdict, which must find no violation. Seed 312348 draws
 * every kind of fault in its first ten, a frozen link first and the database restart second (its
 * robots' catch-up overlaps the faults after it rather than the quiet period), in about 23 s.
 */
class ChaosRunTest {

    @Test
    void noInvariantBreaksUnderSeededFaults(@TempDir Path dir) {
        Chaos.Settings settings = new Chaos.Settings(3, 2, 6, Duration.ofSeconds(25), 312348,
                Chaos.timing(Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofMillis(200)), 20, Duration.ofSeconds(60));
        Chaos.Result result = new Chaos(settings, System.out).run(dir);

        assertTrue(result.verdict().passed(), String.join("\n", result.verdict().lines()));
        Set<Fault.Kind> kinds = EnumSet.noneOf(Fault.Kind.class);
        result.faults().forEach(f -> kinds.add(f.kind()));
        assertTrue(kinds.size() >= 4, "faults of only " + kinds);
        assertTrue(result.inputs() > 100, "only " + result.inputs() + " inputs");
        assertEquals(6 * result.inputs(), result.outputs(), "every robot has an output per input");
    }
}
