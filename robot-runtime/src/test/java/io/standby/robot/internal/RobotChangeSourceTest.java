package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.mongodb.MongoCommandException;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.standby.robot.model.RobotFields;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What the production source sends, checked on the embedded server: it has no change streams, but it receives the
 * opening {@code aggregate} as the driver built it.
 */
class RobotChangeSourceTest {

    @Test
    void aStreamGetsItsOwnTimeoutAboveItsAwaitTimeHoweverShortTheClientTimeoutIs() {
        List<CommandStartedEvent> sent = new CopyOnWriteArrayList<>();
        // The embedded server logs a stack trace for the $changeStream it cannot run; this test asks on purpose.
        Logger serverLog = (Logger) LoggerFactory.getLogger("de.bwaldvogel.mongo.wire.MongoWireProtocolHandler");
        Level level = serverLog.getLevel();
        serverLog.setLevel(Level.OFF);
        try (TestMongo.Embedded server = TestMongo.startEmbedded();
                StandbyDatabase database = StandbyDatabase.connect(
                        server.uri(),
                        TestMongo.freshDatabase("robot_source"),
                        Duration.ofMillis(300),
                        settings -> settings.addCommandListener(new CommandListener() {
                            @Override
                            public void commandStarted(CommandStartedEvent event) {
                                sent.add(event);
                            }
                        }))) {
            MongoRobotChangeSource source = new MongoRobotChangeSource(database.client(), database.database());

            // With the client's 300 ms the driver would refuse the 1 s await time (IllegalArgumentException).
            assertThrows(MongoCommandException.class, () -> source.open(RobotChanges.pipeline(Set.of("slot-0")), null));

            BsonDocument aggregate = sent.stream()
                    .filter(e -> e.getCommandName().equals("aggregate"))
                    .findFirst()
                    .orElseThrow()
                    .getCommand();
            assertEquals(
                    RobotFields.COLLECTION, aggregate.getString("aggregate").getValue());
            assertTrue(aggregate.getArray("pipeline").get(0).asDocument().containsKey("$changeStream"));
            long maxTimeMs = aggregate.getNumber("maxTimeMS").longValue();
            assertTrue(
                    maxTimeMs > MongoRobotChangeSource.MAX_AWAIT.toMillis()
                            && maxTimeMs <= MongoRobotChangeSource.TIMEOUT.toMillis(),
                    "maxTimeMS " + maxTimeMs);
        } finally {
            serverLog.setLevel(level);
        }
    }
}
