package io.standby.bench;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** A bench option's duration as {@code standby} takes them: {@code 500ms}, {@code 30s}, {@code 2m}. */
public final class DurationOption implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m)");

    @Override
    public Duration convert(String value) {
        Matcher m = FORMAT.matcher(value.strip());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException("invalid duration '" + value + "': use e.g. 500ms, 30s, 2m");
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> Duration.ofMinutes(amount);
        };
    }
}
