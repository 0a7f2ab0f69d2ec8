package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.embedded.StandbyMemoryBackend;
import io.standby.slot.EventFields;
import io.standby.slot.EventTable;
import io.standby.slot.FreshDatabase;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.CommandLog;
import io.standby.testing.TestDatabase;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The events collection stays bounded: its writers delete what is older than the retention. */
class EventLogTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = FreshDatabase.perTest();

    private StandbyDatabase db;

    @BeforeEach
    void setUp() {
        db = database.connection();
    }

    @Test
    void aWriterDeletesEventsOlderThanTheRetentionWhenItStarts() {
        MongoCollection<Document> events = db.database().getCollection(EventLog.COLLECTION);
        Instant old = Instant.now().minus(EventLog.RETENTION).minus(Duration.ofHours(1));
        Instant recent = Instant.now().minus(EventLog.RETENTION).plus(Duration.ofHours(1));
        events.insertOne(new Document("type", "claimed").append("slot", "old").append("time", Date.from(old)));
        events.insertOne(
                new Document("type", "claimed").append("slot", "recent").append("time", Date.from(recent)));

        EventLog log = new EventLog(db.database()).start();
        log.record(new Document("type", "claimed")
                .append("slot", "new")
                .append("epoch", 1L)
                .append("node", "10.0.0.1:7700"));
        log.close(Duration.ofSeconds(30));

        assertEquals(
                List.of("recent", "new"),
                new EventTable(db)
                        .list(null, null, null, null).stream()
                                .map(e -> e.slot())
                                .toList(),
                "bounded by age, with nothing newer lost");
    }

    /**
     * Events are history, but their times are compared with leases and claims, which the server's clock stamps: so the
     * server stamps events too, here one whose clock runs three hours ahead of this process's. One read of its clock
     * serves a whole batch, sent as one insert: an upsert per event cost the server six times as much.
     */
    @Test
    void aBatchOfEventsIsStampedByTheServersClockAndSentAsOneInsert() {
        Duration ahead = Duration.ofHours(3);
        List<String> commands = writeFifty(new StandbyMemoryBackend(Clock.offset(Clock.systemUTC(), ahead)), ahead);
        assertEquals(List.of("insert events"), commands, "one insert for the batch, queued before the writer started");
    }

    /** A server that does not know {@code hello} (the stock mongo-java-server) still gets every event. */
    @Test
    void aServerWithoutHelloGetsTheEventsAsUpsertsStampedByItself() {
        List<String> commands = writeFifty(new MemoryBackend(), Duration.ZERO);
        assertEquals(List.of("update events"), commands, "one bulk of upserts");
    }

    /** Writes 50 events through a log on a server of {@code backend}; returns the commands sent to the collection. */
    private static List<String> writeFifty(MongoBackend backend, Duration serverAhead) {
        MongoServer server = new MongoServer(backend);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        CommandLog commands = new CommandLog();
        try (StandbyDatabase db = StandbyDatabase.connect(
                "mongodb://127.0.0.1:" + server.getLocalAddress().getPort(),
                "events",
                Duration.ofSeconds(10),
                settings -> settings.addCommandListener(commands))) {
            EventLog log = new EventLog(db.database());
            for (int i = 0; i < 50; i++) {
                log.record(new Document("type", "robot-started").append("robot", "r" + i));
            }
            Instant before = Instant.now().plus(serverAhead);
            log.start().close(Duration.ofSeconds(30));
            Instant after = Instant.now().plus(serverAhead);

            List<Document> written =
                    db.database().getCollection(EventLog.COLLECTION).find().into(new ArrayList<>());
            assertEquals(50, written.size(), "every event");
            for (Document event : written) {
                Instant time = event.getDate(EventFields.TIME).toInstant();
                assertTrue(
                        !time.isBefore(before.minusSeconds(1)) && !time.isAfter(after.plusSeconds(1)),
                        "stamped " + time + ", by the server's clock between " + before + " and " + after);
            }
            return commands.sequence().stream()
                    .filter(c -> c.equals("insert events") || c.equals("update events"))
                    .toList();
        } finally {
            server.shutdownNow();
        }
    }

    /**
     * A node whose user may not create capped collections said so only at DEBUG, and its events went to an uncapped
     * collection unseen. The embedded server has no users, so the decision is tested on its own.
     */
    @Test
    void aCappedCreateRefusedForWantOfPrivilegesIsAWarningThatNamesWhatIsMissing() {
        String warning =
                EventLog.createFailure(13, "not authorized on standby to execute command { create: \"events\" }");
        assertNotNull(warning);
        assertTrue(warning.contains("convertToCapped") && warning.contains("createCollection"), warning);
        assertTrue(warning.contains("not authorized"), "the server's own words: " + warning);
        assertNull(
                EventLog.createFailure(EventLog.NAMESPACE_EXISTS, "collection already exists"),
                "capped by whoever created it first");
        assertNull(
                EventLog.createFailure(115, "capped collections are not supported"),
                "the embedded server: nothing to warn about");
    }
}
