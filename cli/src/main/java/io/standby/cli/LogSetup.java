package io.standby.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * How the command line logs, set up in code: logback's XML configuration cost a one-shot command some 45 ms of CPU at
 * every start (an XML parser and a model built by reflection), for a handful of settings. Found by logback through
 * {@code META-INF/services}, before it looks for any file.
 *
 * <p>Logs go to standard error, so that command output on standard out stays clean for scripts: as text, or with
 * {@code STANDBY_LOG_FORMAT=json} (or {@code --log-format json}) as one JSON object a line (logback's JSON encoder).
 * {@code STANDBY_LOG_LEVEL} sets the level of Standby's own loggers and the robots'. A system property of the same name
 * wins over the variable, as it did in logback.xml. A file named by {@code -Dlogback.configurationFile}, or a
 * {@code logback-test.xml} on the class path (the tests'), is used instead, unless {@code -Dstandby.log.builtin=true}.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {

    static final String FORMAT = "STANDBY_LOG_FORMAT";
    static final String LEVEL = "STANDBY_LOG_LEVEL";

    /** Levels of other people's loggers, for what they say that a user needs, and no more. */
    private static final Map<String, Level> LEVELS = Map.of(
            "org.mongodb.driver", Level.ERROR,
            // Its monitors log what they find (a standalone where the URI names a replica set, say) as an ERROR
            // line per server; the command says it in its own one line (StandbyDatabase.ping).
            "org.mongodb.driver.cluster", Level.OFF,
            "de.bwaldvogel", Level.WARN,
            // The slot read asks for all slots in its first batch; the embedded server warns at every such
            // aggregate that it ignores the batch size (it sends everything anyway).
            "de.bwaldvogel.mongo.backend.aggregation.Aggregation", Level.ERROR,
            // It warns at every node start that it has no compound indexes (the robots' {slotId, epoch}); it scans.
            "de.bwaldvogel.mongo.backend.AbstractMongoDatabase", Level.ERROR,
            "io.netty", Level.WARN,
            "org.h2", Level.WARN);

    /**
     * Whether these settings apply: not where a file configures logback instead (see the class comment), whose levels
     * only logback knows.
     */
    static boolean builtIn() {
        return Boolean.getBoolean("standby.log.builtin")
                || System.getProperty("logback.configurationFile") == null
                        && LogSetup.class.getClassLoader().getResource("logback-test.xml") == null;
    }

    /**
     * The level of the logger {@code name} under these settings, found as logback finds it: the nearest of its
     * ancestors (names cut at '.' or '$') that has one, else the root's. {@link DeferredLogging} answers whether a
     * level is enabled from this before logback starts, so it must stay what {@link #configure} sets.
     */
    static Level level(String name) {
        for (String ancestor = name; !ancestor.isEmpty(); ancestor = parent(ancestor)) {
            Level level = LEVELS.get(ancestor);
            if (level != null) {
                return level;
            }
            if (ancestor.equals("io.standby") || ancestor.equals("robot")) {
                return ours();
            }
        }
        return ROOT;
    }

    private static String parent(String name) {
        int cut = Math.max(name.lastIndexOf('.'), name.lastIndexOf('$'));
        return cut < 0 ? "" : name.substring(0, cut);
    }

    private static final Level ROOT = Level.WARN;

    private static Level ours() {
        return Level.toLevel(setting(LEVEL, "INFO"), Level.INFO);
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (!builtIn()) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        String format = setting(FORMAT, "text");
        appender.setName(format);
        appender.setTarget("System.err");
        appender.setEncoder(encoder(context, format.equals("json")));
        appender.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(ROOT);
        root.addAppender(appender);
        LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
        Level ours = ours();
        context.getLogger("io.standby").setLevel(ours);
        // Robots log through RobotContext.log(), whose loggers are named robot.<type>.
        context.getLogger("robot").setLevel(ours);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, boolean json) {
        if (json) {
            // One object a line: the message formatted, the time as epoch milliseconds ("timestamp"), an
            // exception as a "throwable" object.
            JsonEncoder encoder = new JsonEncoder();
            encoder.setContext(context);
            encoder.setWithSequenceNumber(false);
            encoder.setWithNanoseconds(false);
            encoder.setWithContext(false);
            encoder.setWithMessage(false);
            encoder.setWithArguments(false);
            encoder.setWithFormattedMessage(true);
            encoder.start();
            return encoder;
        }
        return new AtFirstEvent(() -> {
            PatternLayoutEncoder encoder = new PatternLayoutEncoder();
            encoder.setContext(context);
            encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %msg%n");
            encoder.start();
            return encoder;
        });
    }

    /**
     * Builds the text encoder when the first event comes. Parsing the pattern was about 25 ms of a one-shot command
     * that usually logs nothing at all (a third of logback's start-up); a node logs within its first second anyway. The
     * pattern layout writes no header or footer, so none is needed before that.
     */
    static final class AtFirstEvent extends ContextAwareBase implements Encoder<ILoggingEvent> {
        private final Supplier<Encoder<ILoggingEvent>> make;
        private Encoder<ILoggingEvent> encoder;
        private volatile boolean started;

        AtFirstEvent(Supplier<Encoder<ILoggingEvent>> make) {
            this.make = make;
        }

        /** Whether the real encoder has been built, for the test that nothing logged means nothing built. */
        synchronized boolean built() {
            return encoder != null;
        }

        private synchronized Encoder<ILoggingEvent> encoder() {
            if (encoder == null) {
                encoder = make.get();
            }
            return encoder;
        }

        @Override
        public byte[] headerBytes() {
            return null;
        }

        @Override
        public byte[] encode(ILoggingEvent event) {
            return encoder().encode(event);
        }

        @Override
        public byte[] footerBytes() {
            return null;
        }

        @Override
        public void start() {
            started = true;
        }

        @Override
        public void stop() {
            started = false;
        }

        @Override
        public boolean isStarted() {
            return started;
        }
    }

    /** The system property, else the environment variable, else {@code fallback}. */
    static String setting(String name, String fallback) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? fallback : value.strip().toLowerCase(Locale.ROOT);
    }
}
