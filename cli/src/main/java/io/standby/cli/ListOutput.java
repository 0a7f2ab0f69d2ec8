package io.standby.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The output options every list command shares, as kubectl has them: {@code -o json} (one JSON array of objects, fields
 * documented in docs/OUTPUT.md), {@code -o wide} (the table with the columns that do not fit a terminal) and
 * {@code --no-headers} (the table's rows alone).
 */
final class ListOutput {

    /** What {@code -o} takes; without it, the table a person reads. */
    enum Format {
        JSON,
        WIDE;

        static final class Converter implements ITypeConverter<Format> {
            @Override
            public Format convert(String value) {
                return switch (value.toLowerCase(Locale.ROOT)) {
                    case "json" -> JSON;
                    case "wide" -> WIDE;
                    default ->
                        throw new TypeConversionException("'" + value + "' is not an output format: use json or wide");
                };
            }
        }
    }

    @Option(
            names = {"-o", "--output"},
            paramLabel = "json|wide",
            converter = Format.Converter.class,
            description = "json: one JSON array of objects, for scripts (times in ISO-8601, durations in ms; "
                    + "fields in docs/OUTPUT.md); wide: the table with more columns. Default: the table.")
    Format format;

    @Option(
            names = "--no-headers",
            description = "Print the table's rows without its header line (or nothing when "
                    + "there are none), for scripts; -o json ignores it.")
    boolean noHeaders;

    boolean json() {
        return format == Format.JSON;
    }

    boolean wide() {
        return format == Format.WIDE;
    }

    /**
     * What a command with nothing to list prints: {@code []} for JSON, nothing without headers, else {@code message}
     * for a person.
     */
    void printEmpty(PrintWriter out, String message) {
        if (json()) {
            out.println("[]");
        } else if (!noHeaders) {
            out.println(message);
        }
        out.flush();
    }

    void print(PrintWriter out, Table table) {
        if (noHeaders) {
            table.printRows(out);
        } else {
            table.print(out);
        }
    }

    void print(PrintWriter out, List<? extends Map<String, ?>> objects) {
        out.println(Json.pretty(objects));
        out.flush();
    }
}
