package io.standby.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.joran.spi.JoranException;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How the logs on standard error look: {@code text} for people, {@code json} (one object a line, logback's JSON
 * encoder) for log shippers. {@link LogSetup} follows {@code STANDBY_LOG_FORMAT}; {@code --log-format} sets that as a
 * system property, which it reads before the environment.
 */
final class LogFormat {

    static final String VARIABLE = LogSetup.FORMAT;

    private LogFormat() {}

    /** text or json, whatever the case; anything else is one line naming it. */
    static final class Converter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String format = value.strip().toLowerCase(Locale.ROOT);
            if (!format.equals("text") && !format.equals("json")) {
                throw new TypeConversionException("'" + value + "' is not a log format: use text or json");
            }
            return format;
        }
    }

    /**
     * Logs in {@code format} from now on. The command classes' loggers set logging up as the command line is built,
     * before its options are read: so a format other than the one it was set up with reconfigures it.
     */
    static void use(String format) {
        if (format.equals(LogSetup.setting(VARIABLE, "text"))) {
            return;
        }
        System.setProperty(VARIABLE, format);
        // Not started yet (DeferredLogging), logback reads the property when it starts.
        Optional<LoggerContext> started = DeferredLogging.startedContext();
        if (started.isPresent()) {
            LoggerContext context = started.get();
            context.reset();
            try {
                new ContextInitializer(context).autoConfig();
            } catch (JoranException e) {
                throw new IllegalStateException("cannot set up logging in " + format + ": " + e.getMessage(), e);
            }
        }
    }
}
