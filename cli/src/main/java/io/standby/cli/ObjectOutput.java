package io.standby.cli;

import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code -o json|yaml|wide} on the commands that print one object: {@code robot show}, {@code status}, and the commands
 * that change things, whose result (what was done, ids, epochs) a script can then parse.
 */
final class ObjectOutput {

    @Option(
            names = {"-o", "--output"},
            paramLabel = OutputFormat.LABEL,
            converter = OutputFormat.Converter.class,
            description = "json or yaml: the result as one object, for scripts (times in ISO-8601, durations in ms; "
                    + "fields in docs/OUTPUT.md); wide: the text, as without -o.")
    OutputFormat format;

    /** A command's older {@code --json}, kept as the same as {@code -o json}; refused beside another {@code -o}. */
    void alias(boolean json) {
        if (json && format != null && format != OutputFormat.JSON) {
            throw Flags.invalid("--json and -o " + format.name().toLowerCase(Locale.ROOT)
                    + " do not go together: --json is -o json");
        }
        if (json) {
            format = OutputFormat.JSON;
        }
    }

    boolean structured() {
        return OutputFormat.structured(format);
    }

    /**
     * Prints {@code result} if {@code -o} asked for JSON or YAML, and says whether it did: if not, the command prints
     * its text.
     */
    boolean print(PrintWriter out, Object result) {
        if (!structured()) {
            return false;
        }
        out.println(format.render(result));
        out.flush();
        return true;
    }
}
