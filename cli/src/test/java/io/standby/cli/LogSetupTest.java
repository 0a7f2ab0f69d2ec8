package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LogSetupTest {

    @Test
    void theTextPatternIsBuiltAtTheFirstEventAndFormatsItsLine() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setProperty("standby.log.builtin", "true");
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        try {
            LogSetup setup = new LogSetup();
            setup.setContext(context);
            setup.configure(context);
            Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
            OutputStreamAppender<?> appender = (OutputStreamAppender<?>) root.getAppender("text");
            LogSetup.AtFirstEvent encoder = assertInstanceOf(LogSetup.AtFirstEvent.class, appender.getEncoder());
            assertTrue(appender.isStarted(), "the appender starts without the pattern");
            assertFalse(encoder.built(), "nothing logged yet, so no pattern parsed");

            context.getLogger("io.standby.cli.Test").warn("the {} line", "first");

            assertTrue(
                    encoder.built(),
                    () -> "built at the first event; "
                            + context.getStatusManager().getCopyOfStatusList());
            String line = captured.toString(StandardCharsets.UTF_8);
            assertTrue(
                    line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\["
                            + Thread.currentThread().getName() + "] the first line\\R"),
                    line);
        } finally {
            context.stop();
            System.setErr(err);
            System.clearProperty("standby.log.builtin");
        }
    }
}
