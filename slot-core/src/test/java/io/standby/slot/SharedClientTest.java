package io.standby.slot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * {@link StandbyDatabase#of}: an application's own client (a Spring bean, say) carries the protocol's settings through
 * the database view, and stays open when the view closes.
 */
class SharedClientTest {

    @Test
    void theProtocolsSettingsHoldOnAClientConfiguredWithoutThemAndItStaysOpen(TestInfo test) {
        String name = TestMongo.freshDatabase(test.getTestMethod().orElseThrow().getName());
        try (MongoClient client = MongoClients.create(TestMongo.uri())) {
            StandbyDatabase db = StandbyDatabase.of(client, name, Duration.ofMillis(750));
            assertEquals(750, db.database().getTimeout(TimeUnit.MILLISECONDS));
            assertEquals(WriteConcern.MAJORITY, db.database().getWriteConcern());
            assertEquals(ReadConcern.MAJORITY, db.database().getReadConcern());
            assertEquals(ReadPreference.primary(), db.database().getReadPreference());
            db.ping();
            new SlotTable(db).init(2);
            assertEquals(2, new SlotTable(db).list().size());
            db.close();
            // Still the application's: it answers after the view closed.
            assertEquals(2, client.getDatabase(name).getCollection("slots").countDocuments());
            client.getDatabase(name).drop();
        }
    }

    @Test
    void aHungDatabaseTimesOutAtTheViewsTimeoutThoughTheClientHasNone() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(TestMongo.uri());
                MongoClient client = MongoClients.create(proxy.uri())) {
            StandbyDatabase db = StandbyDatabase.of(client, TestMongo.freshDatabase("hung"), Duration.ofMillis(300));
            client.getDatabase("admin").runCommand(new Document("ping", 1)); // connected before the hang
            proxy.pause();
            // Generous: without the view's timeout the driver waits for ever on the paused link.
            assertTimeoutPreemptively(
                    Duration.ofSeconds(15), () -> assertThrows(RuntimeException.class, () -> new SlotTable(db).list()));
            proxy.resume();
        }
    }

    @Test
    void aBadDatabaseNameIsRejectedByName() {
        try (MongoClient client = MongoClients.create(TestMongo.uri())) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> StandbyDatabase.of(client, "bad name", Duration.ofSeconds(1)));
            assertEquals(
                    "invalid database name 'bad name': use letters, digits, '_' or '-' (at most 63)", e.getMessage());
        }
    }
}
