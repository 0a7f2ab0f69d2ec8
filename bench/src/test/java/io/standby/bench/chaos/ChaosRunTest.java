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
 * The short chaos run of {@code mvn verify}: 3 node processes, 2 slots, 6 ledger robots, 30 s of faults
 * from a fixed seed, then the verdict, which must find no violation. Seed 77 draws
 * every kind of fault in its first eight. 44 to 49 s in five runs at load average 6 to 13.
 */
class ChaosRunTest {

    @Test
    void noInvariantBreaksUnderSeededFaults(@TempDir Path dir) {
        Chaos.Settings settings = new Chaos.Settings(3, 2, 6, Duration.ofSeconds(30), 77,
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
