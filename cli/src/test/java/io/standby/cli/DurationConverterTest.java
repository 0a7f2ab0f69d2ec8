package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations as Spring reads them ({@code 500ms}, {@code 2s}, ISO-8601 {@code PT2S}) and as kubectl and Go write them
 * ({@code 1m30s}); anything else is one line naming the value, through a real command as well.
 */
class DurationConverterTest {

    private final DurationConverter converter = new DurationConverter();

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "500ms,     500",
        "2s,        2000",
        "1m,        60000",
        "1h,        3600000",
        "1d,        86400000",
        "1m30s,     90000",
        "1h2m3s4ms, 3723004",
        "2s500ms,   2500",
        "PT2S,      2000",
        "pt1m30s,   90000",
        "PT0.5S,    500",
        "P1DT1H,    90000000",
        "0s,        0",
        "' 2s ',    2000"
    })
    void reads(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), converter.convert(text));
    }

    @ParameterizedTest(name = "'{0}'")
    @ValueSource(strings = {"500", "2x", "1m30", "s", "-2s", "PT-2S", "-PT2S", "PTS", "1.5s", "2s2s", "30s1m", ""})
    void refusesWithOneLineNamingTheValue(String text) {
        TypeConversionException e = assertThrows(TypeConversionException.class, () -> converter.convert(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"1m30s, 90s", "PT2S, 2s"})
    void aCommandTakesThem(String since, String read) {
        CliRun run = CliRun.against("durations", "events", "--since", since);
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("No events in the last " + read + ".", run.out().strip());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1m30", "PT2X", "500"})
    void aCommandRefusesABadOneWithExitCode2NamingIt(String since) {
        CliRun run = CliRun.of("events", "--since", since, "--mongo", "mongodb://127.0.0.1:1");
        assertEquals(2, run.exitCode(), run.err());
        String line = run.errorLine();
        assertTrue(line.contains("'" + since + "'") && line.contains("--since"), line);
        assertFalse(line.contains("Exception"), line);
        assertEquals("", run.out());
    }
}
