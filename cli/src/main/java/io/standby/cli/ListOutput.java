package io.standby.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The output options every list command shares, as kubectl has them: {@code -o json} or {@code -o yaml} (one array of
 * objects, fields documented in docs/OUTPUT.md), {@code -o wide} (the table with the columns that do not fit a
 * terminal) and {@code --no-headers} (the table's rows alone).
 */
final class ListOutput {

    @Option(
            names = {"-o", "--output"},
            paramLabel = OutputFormat.LABEL,
            converter = OutputFormat.Converter.class,
            description = "json or yaml: one array of objects, for scripts (times in ISO-8601, durations in ms; "
                    + "fields in docs/OUTPUT.md); wide: the table with more columns. Default: the table.")
    OutputFormat format;

    @Option(
            names = "--no-headers",
            description = "Print the table's rows without its header line (or nothing when "
                    + "there are none), for scripts; -o json and -o yaml ignore it.")
    boolean noHeaders;

    /** JSON or YAML, for scripts, rather than a table. */
    boolean structured() {
        return OutputFormat.structured(format);
    }

    boolean wide() {
        return format == OutputFormat.WIDE;
    }

    /**
     * What a command with nothing to list prints: {@code []} for JSON and YAML, nothing without headers, else
     * {@code message} for a person.
     */
    void printEmpty(PrintWriter out, String message) {
        if (structured()) {
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
        out.println(format.render(objects));
        out.flush();
    }
}
