package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** Logback starts at the first event logged, and until then the levels are the ones it is then configured with. */
class DeferredLoggingTest {

    @Test
    void beforeLogbackStartsEveryLoggerHasTheLevelLogbackGivesItThen() {
        System.setProperty("standby.log.builtin", "true");
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        try {
            LogSetup setup = new LogSetup();
            setup.setContext(context);
            setup.configure(context);
            for (String name : List.of(
                    "io.standby.slot.StandbyDatabase",
                    "io.standby",
                    "robot.counter",
                    "robot",
                    "robots.elsewhere",
                    "org.mongodb.driver.connection",
                    "org.mongodb.driver.cluster",
                    "org.mongodb.driver.cluster.Monitor$Inner",
                    "org.mongodb",
                    "de.bwaldvogel.mongo.backend.aggregation.Aggregation",
                    "de.bwaldvogel.mongo.backend.aggregation.Aggregation$Stage",
                    "de.bwaldvogel.mongo.backend.AbstractMongoDatabase",
                    "de.bwaldvogel.mongo.MongoServer",
                    "io.netty.channel.nio.NioEventLoop",
                    "org.h2.engine",
                    "com.example.Other",
                    "ROOT")) {
                assertEquals(context.getLogger(name).getEffectiveLevel(), LogSetup.level(name), name);
            }
        } finally {
            context.stop();
            System.clearProperty("standby.log.builtin");
        }
    }

    @Test
    void nothingLoggedStartsNothingAndTheFirstEventStartsLogbackAndIsWritten() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setProperty("standby.log.builtin", "true");
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        DeferredLogging logging = new DeferredLogging();
        try {
            // In the order SLF4J binds a provider (LoggerFactory.bind): the MDC first, then initialize.
            org.slf4j.spi.MDCAdapter mdc = logging.getMDCAdapter();
            logging.initialize();
            mdc.put("robot", "r1");
            Logger driver = logging.getLoggerFactory().getLogger("org.mongodb.driver.connection");
            Logger ours = logging.getLoggerFactory().getLogger("io.standby.cli.Test");
            assertFalse(driver.isWarnEnabled());
            assertTrue(driver.isErrorEnabled());
            assertFalse(ours.isDebugEnabled());
            assertTrue(ours.isInfoEnabled());
            driver.warn("not written");
            ours.debug("not written either");
            assertFalse(logging.started(), "nothing enabled was logged");

            ours.warn("the {} line", "first", new IllegalStateException("why"));

            assertTrue(logging.started());
            String written = captured.toString(StandardCharsets.UTF_8);
            assertTrue(
                    written.matches("(?s)\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\["
                            + Thread.currentThread().getName()
                            + "] the first line\\R"
                            + "java.lang.IllegalStateException: why\\R.*"),
                    written);
            assertFalse(written.contains("not written"), written);
            assertEquals("r1", logging.context().getMDCAdapter().get("robot"), "logback has the MDC given out");
            assertTrue(
                    logging.getLoggerFactory().getLogger("io.standby.Later") instanceof ch.qos.logback.classic.Logger,
                    "loggers asked for later are logback's own");
        } finally {
            logging.stop();
            System.setErr(err);
            System.clearProperty("standby.log.builtin");
        }
    }
}
