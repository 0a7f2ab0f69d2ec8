package io.standby.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code bench scale}'s own logic, without processes: its arguments and how it reads jcmd's heap figures. Under a
 * second.
 */
class ScaleBenchTest {

    @Test
    void badArgumentsAreOneLineNamingTheValue() {
        assertRefused("must be at least 1", "--robots", "0");
        assertRefused("must be at least 1", "--window", "-3");
        assertRefused("--interval-ms 0", "--interval-ms", "0");
        assertRefused("'lots'", "--node-heap", "lots");
        assertRefused("'x'", "--robots", "x");
    }

    private static void assertRefused(String expected, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cli = Bench.commandLine();
        cli.setErr(new PrintWriter(err));
        String[] all = new String[args.length + 1];
        all[0] = "scale";
        System.arraycopy(args, 0, all, 1, args.length);
        int code = cli.execute(all);
        String firstLine = err.toString().lines().findFirst().orElse("");
        assertNotEquals(0, code, String.join(" ", args));
        assertTrue(firstLine.contains(expected), "error for " + String.join(" ", args) + ": " + err);
        assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
    }

    @Test
    void heapUsedIsTheSumOfTheGenerationsOfSerialGcAndTheHeapOfG1() {
        String serial = """
                31047:
                DefNew     total 116224K, used 4136K [0x0000000080000000, 0x0000000087e10000, 0x00000000aaaa0000)
                 eden space 103360K,   4% used [0x0000000080000000, 0x000000008040a148, 0x00000000864f0000)
                 from space 12864K,   0% used [0x00000000864f0000, 0x00000000864f0000, 0x0000000087180000)
                Tenured    total 258048K, used 8290K [0x00000000aaaa0000, 0x00000000ba6a0000, 0x0000000100000000)
                 Metaspace       used 6123K, committed 6400K, reserved 1114112K
                """;
        assertEquals((4136L + 8290L) * 1024, ScaleBench.heapUsed(serial));
        String g1 = """
                 garbage-first heap   total 262144K, used 20480K [0x0000000700000000, 0x0000000800000000)
                  region size 1024K, 1 young (1024K), 0 survivors (0K)
                 Metaspace       used 6123K, committed 6400K, reserved 1114112K
                """;
        assertEquals(20480L * 1024, ScaleBench.heapUsed(g1));
        assertThrows(IllegalStateException.class, () -> ScaleBench.heapUsed("31047:\nNo such process"));
    }

    @Test
    void occurrencesCountsEveryLine() {
        assertEquals(2, ScaleBench.occurrences("a not written\nb\nc not written\n", "not written"));
        assertEquals(0, ScaleBench.occurrences("", "not written"));
    }
}
