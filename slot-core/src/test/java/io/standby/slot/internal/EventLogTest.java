package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.standby.slot.EventTable;
import io.standby.slot.FreshDatabase;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
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
