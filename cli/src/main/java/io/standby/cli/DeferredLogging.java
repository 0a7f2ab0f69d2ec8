package io.standby.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.StatusUtil;
import ch.qos.logback.core.util.StatusPrinter;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.Util;
import org.slf4j.spi.LoggingEventAware;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Logging for a one-shot command: logback, started at the first event that is logged rather than at the first logger
 * asked for. Starting it was some 45 ms of every such command, and most log nothing (the driver's and our classes ask
 * for loggers as they load). Until then, whether a level is enabled comes from {@link LogSetup#level}, the table
 * logback is then configured from; afterwards everything goes to logback's loggers. Where a file configures logback
 * ({@link LogSetup#builtIn}) it starts at once, as only logback knows that file's levels. The MDC is logback's from the
 * start (SLF4J asks for it before anything else), and handed to logback's context when it starts.
 *
 * <p>Installed by {@link #install} as SLF4J's provider ({@code slf4j.provider}) before anything logs. Long-running
 * commands (a node, the embedded server, the demo) log at once anyway and keep logback's provider.
 */
public final class DeferredLogging implements SLF4JServiceProvider {

    /** logback's MDC, given to SLF4J at once and to logback's context when it starts. */
    private final LogbackMDCAdapter mdc = new LogbackMDCAdapter();

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final ConcurrentMap<String, Deferred> loggers = new ConcurrentHashMap<>();
    private volatile ILoggerFactory started;

    /** Makes this SLF4J's provider, unless the user named one. */
    static void install() {
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", DeferredLogging.class.getName());
            // SLF4J announces a provider named so on standard error ("SLF4J(I): Attempting to load...").
            if (System.getProperty("slf4j.internal.verbosity") == null) {
                System.setProperty("slf4j.internal.verbosity", "WARN");
            }
        }
    }

    /** logback's context if it has started (by this provider or as SLF4J's own), for a change of configuration. */
    static Optional<LoggerContext> startedContext() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (factory instanceof LoggerContext context) {
            return Optional.of(context);
        }
        if (factory instanceof Loggers deferred && deferred.provider().started instanceof LoggerContext context) {
            return Optional.of(context);
        }
        return Optional.empty();
    }

    @Override
    public void initialize() {
        if (!LogSetup.builtIn()) {
            start();
        }
    }

    private ILoggerFactory start() {
        ILoggerFactory factory = started;
        if (factory != null) {
            return factory;
        }
        synchronized (this) {
            if (started == null) {
                // What logback's own provider (LogbackServiceProvider.initialize) does, with the MDC given out before.
                LoggerContext context = new LoggerContext();
                context.setName(CoreConstants.DEFAULT_CONTEXT_NAME);
                context.setMDCAdapter(mdc);
                try {
                    new ContextInitializer(context).autoConfig();
                } catch (JoranException e) {
                    Util.report("Failed to auto configure default logger context", e);
                }
                if (!StatusUtil.contextHasStatusListener(context)) {
                    StatusPrinter.printInCaseOfErrorsOrWarnings(context);
                }
                context.start();
                started = context;
            }
            return started;
        }
    }

    /** Whether logback has started, for the tests. */
    boolean started() {
        return started != null;
    }

    /** logback's context once started, else null; for the tests. */
    LoggerContext context() {
        return started instanceof LoggerContext context ? context : null;
    }

    /** Stops logback if it started, for the tests. */
    synchronized void stop() {
        if (started instanceof LoggerContext context) {
            context.stop();
        }
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return new Loggers();
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        // LogbackServiceProvider.REQUESTED_API_VERSION, without loading logback.
        return "2.0.99";
    }

    /** logback's loggers once it has started, deferred ones before. */
    private final class Loggers implements ILoggerFactory {
        @Override
        public Logger getLogger(String name) {
            ILoggerFactory factory = started;
            return factory != null ? factory.getLogger(name) : loggers.computeIfAbsent(name, Deferred::new);
        }

        DeferredLogging provider() {
            return DeferredLogging.this;
        }
    }

    /** A logger asked for before logback started: starts it at its first enabled event, then hands over. */
    private final class Deferred extends AbstractLogger implements LoggingEventAware {
        private final ch.qos.logback.classic.Level level;

        Deferred(String name) {
            this.name = name;
            this.level = LogSetup.level(name);
        }

        private Logger logback() {
            return start().getLogger(name);
        }

        private boolean enabled(ch.qos.logback.classic.Level asked) {
            return asked.isGreaterOrEqual(level);
        }

        @Override
        public boolean isTraceEnabled() {
            return started != null ? logback().isTraceEnabled() : enabled(ch.qos.logback.classic.Level.TRACE);
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return started != null ? logback().isTraceEnabled(marker) : isTraceEnabled();
        }

        @Override
        public boolean isDebugEnabled() {
            return started != null ? logback().isDebugEnabled() : enabled(ch.qos.logback.classic.Level.DEBUG);
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return started != null ? logback().isDebugEnabled(marker) : isDebugEnabled();
        }

        @Override
        public boolean isInfoEnabled() {
            return started != null ? logback().isInfoEnabled() : enabled(ch.qos.logback.classic.Level.INFO);
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return started != null ? logback().isInfoEnabled(marker) : isInfoEnabled();
        }

        @Override
        public boolean isWarnEnabled() {
            return started != null ? logback().isWarnEnabled() : enabled(ch.qos.logback.classic.Level.WARN);
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return started != null ? logback().isWarnEnabled(marker) : isWarnEnabled();
        }

        @Override
        public boolean isErrorEnabled() {
            return started != null ? logback().isErrorEnabled() : enabled(ch.qos.logback.classic.Level.ERROR);
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return started != null ? logback().isErrorEnabled(marker) : isErrorEnabled();
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(
                Level level, Marker marker, String message, Object[] arguments, Throwable throwable) {
            org.slf4j.event.DefaultLoggingEvent event = new org.slf4j.event.DefaultLoggingEvent(level, this);
            if (marker != null) {
                event.addMarker(marker);
            }
            event.setMessage(message);
            if (arguments != null) {
                event.addArguments(arguments);
            }
            event.setThrowable(throwable);
            log(event);
        }

        /** The fluent API's events (key-value pairs and all), and the others, as logback's logger takes them. */
        @Override
        public void log(LoggingEvent event) {
            Logger logger = logback();
            if (logger instanceof LoggingEventAware aware) {
                aware.log(event);
            }
        }
    }
}
