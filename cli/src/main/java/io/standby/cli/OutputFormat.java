package io.standby.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * What {@code -o} takes on every command, and the one place that turns a result into JSON or YAML; without {@code -o},
 * a command prints the text or table a person reads. Field names are documented in docs/OUTPUT.md.
 */
enum OutputFormat {
    JSON,
    YAML,
    /** The table with the columns that do not fit a terminal; where a command has no wider view, its text. */
    WIDE;

    static final String LABEL = "json|yaml|wide";

    /** Whether a script reads it: JSON or YAML rather than text. */
    boolean structured() {
        return this != WIDE;
    }

    /** {@code value} (maps, lists, strings, numbers, times) as this format writes it, without a final newline. */
    String render(Object value) {
        return this == YAML ? Yaml.write(value).stripTrailing() : Json.pretty(value);
    }

    static boolean structured(OutputFormat format) {
        return format != null && format.structured();
    }

    static final class Converter implements ITypeConverter<OutputFormat> {
        @Override
        public OutputFormat convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "json" -> JSON;
                case "yaml" -> YAML;
                case "wide" -> WIDE;
                default ->
                    throw new TypeConversionException(
                            "'" + value + "' is not an output format: use json, yaml or wide");
            };
        }
    }
}
