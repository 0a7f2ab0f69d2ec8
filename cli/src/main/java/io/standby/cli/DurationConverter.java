package io.standby.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Durations as Spring's properties read them: {@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h}, {@code 1d} and
 * ISO-8601 ({@code PT2S}, {@code PT1M30S}); and, as kubectl and Go write them, units together in falling order
 * ({@code 1m30s}, {@code 1h2m}). A number without a unit is refused, as before: Spring would read it as milliseconds
 * where a person may mean seconds.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    /** Largest first: {@code 30s1m} and {@code 2s2s} are more likely typos than meant. */
    private static final List<String> UNITS = List.of("d", "h", "m", "s", "ms");

    private static final Pattern PART = Pattern.compile("(\\d{1,9})(ms|d|h|m|s)");

    @Override
    public Duration convert(String value) {
        String text = value.strip();
        if (!text.isEmpty() && Character.toUpperCase(text.charAt(0)) == 'P') {
            return iso(value, text);
        }
        Matcher m = PART.matcher(text);
        Duration total = Duration.ZERO;
        int end = 0;
        int lastUnit = -1;
        while (m.find() && m.start() == end) {
            int unit = UNITS.indexOf(m.group(2));
            if (unit <= lastUnit) {
                throw invalid(value);
            }
            lastUnit = unit;
            total = total.plus(of(Long.parseLong(m.group(1)), m.group(2)));
            end = m.end();
        }
        if (end == 0 || end != text.length()) {
            throw invalid(value);
        }
        return total;
    }

    private static Duration iso(String value, String text) {
        Duration parsed;
        try {
            parsed = Duration.parse(text.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw invalid(value);
        }
        if (parsed.isNegative()) {
            throw invalid(value);
        }
        return parsed;
    }

    private static Duration of(long amount, String unit) {
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    private static CommandLine.TypeConversionException invalid(String value) {
        return new CommandLine.TypeConversionException("invalid duration '" + value
                + "': use whole numbers with ms, s, m, h or d, largest first (500ms, 2s, 1m30s), or ISO-8601 (PT2S)");
    }
}
