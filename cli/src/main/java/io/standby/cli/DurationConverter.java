package io.standby.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations as people write them: {@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        Matcher m = FORMAT.matcher(value.strip());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "invalid duration '" + value + "': use a whole number with ms, s, m or h, e.g. 500ms, 2s, 1m");
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }
}
