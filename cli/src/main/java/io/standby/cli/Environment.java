package io.standby.cli;

import java.lang.reflect.AnnotatedElement;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * Options whose default comes from an environment variable ({@code defaultValue = "${env:STANDBY_PORT}"}), so that a
 * complaint about a value nobody typed can name the variable it came from.
 */
final class Environment {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{env:(\\w+)");

    private Environment() {}

    /**
     * The variable that set {@code option} on this run: the option has one as its default, the command line did not
     * give the option, and the variable is set.
     */
    static Optional<String> variable(CommandLine cli, OptionSpec option) {
        // The default as written: the spec's own is already interpolated.
        String declared;
        if (option.userObject() instanceof Declared generated) {
            declared = generated.defaultValue();
        } else if (option.userObject() instanceof AnnotatedElement element
                && element.getAnnotation(Option.class) != null) {
            declared = element.getAnnotation(Option.class).defaultValue();
        } else {
            return Optional.empty();
        }
        Matcher variable = VARIABLE.matcher(declared);
        if (!variable.find() || System.getenv(variable.group(1)) == null) {
            return Optional.empty();
        }
        CommandLine.ParseResult parsed = cli.getParseResult();
        return parsed != null && parsed.hasMatchedOption(option) ? Optional.empty() : Optional.of(variable.group(1));
    }

    /** An option's default as its annotation declares it, where the generated {@link CommandModel} built the option. */
    record Declared(String defaultValue) {}

    /**
     * {@code message} about the command's settings, with the variable named of every option it names that came from the
     * environment, e.g. "invalid --port 70000: expected 1-65535 (STANDBY_PORT=70000)".
     */
    static String naming(CommandLine cli, String message) {
        StringBuilder named = new StringBuilder(message);
        for (OptionSpec option : cli.getCommandSpec().options()) {
            if (Pattern.compile(Pattern.quote(option.longestName()) + "\\b")
                    .matcher(message)
                    .find()) {
                variable(cli, option)
                        .ifPresent(name -> named.append(" (")
                                .append(name)
                                .append('=')
                                .append(System.getenv(name))
                                .append(')'));
            }
        }
        return named.toString();
    }
}
