package io.standby.robot.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.standby.robot.internal.RobotChangeWatcher.Status;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The production watcher on the embedded server, which has no change streams and says so noisily when asked. */
class RobotChangeWatcherEmbeddedTest {

    @Test
    void onTheEmbeddedServerTheWatcherFindsThereAreNoChangeStreamsWithoutAskingForOne() {
        List<CommandStartedEvent> sent = new CopyOnWriteArrayList<>();
        List<ILoggingEvent> logged = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                logged.add(event);
            }
        };
        capture.start();
        Logger logger = (Logger) LoggerFactory.getLogger(RobotChangeWatcher.class);
        logger.addAppender(capture);
        AtomicInteger wakes = new AtomicInteger();
        try (TestMongo.Embedded server = TestMongo.startEmbedded();
                StandbyDatabase database = StandbyDatabase.connect(
                        server.uri(),
                        TestMongo.freshDatabase("robot_watch"),
                        Duration.ofSeconds(2),
                        settings -> settings.addCommandListener(new CommandListener() {
                            @Override
                            public void commandStarted(CommandStartedEvent event) {
                                sent.add(event);
                            }
                        }));
                RobotChangeWatcher watcher =
                        RobotChangeWatcher.on(database, Duration.ofMillis(500), wakes::incrementAndGet)) {
            watcher.slots(Set.of("slot-0"));
            watcher.start();

            await().until(() -> !watcher.running());

            assertEquals(Status.UNAVAILABLE, watcher.status());
            List<String> commands =
                    sent.stream().map(CommandStartedEvent::getCommandName).toList();
            assertTrue(commands.contains("ping"), "the listener sees the commands sent: " + commands);
            assertEquals(
                    List.of(),
                    sent.stream()
                            .filter(e -> e.getCommand().toJson().contains("$changeStream"))
                            .toList());
            assertEquals(
                    List.of(),
                    sent.stream()
                            .filter(e -> e.getCommandName().equals("hello"))
                            .toList());
            assertEquals(0, wakes.get());
            assertEquals(
                    List.of("No change streams on a standalone server; robots are re-read every 500ms"),
                    logged.stream()
                            .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
                            .map(ILoggingEvent::getFormattedMessage)
                            .toList());
        } finally {
            logger.detachAppender(capture);
        }
    }
}
