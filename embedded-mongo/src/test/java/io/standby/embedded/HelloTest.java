package io.standby.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** {@code hello} on the embedded server, over the wire: {@code isMaster}'s answer under its new name. */
class HelloTest {

    @Test
    void helloAnswersWithTheServersClockAndHellosOwnFieldNames() {
        Duration ahead = Duration.ofHours(2);
        MongoServer server = new MongoServer(new StandbyMemoryBackend(Clock.offset(Clock.systemUTC(), ahead)));
        server.bind("127.0.0.1", 0);
        try (MongoClient client = MongoClients.create(
                "mongodb://127.0.0.1:" + server.getLocalAddress().getPort())) {
            Instant before = Instant.now().plus(ahead);
            Document reply = client.getDatabase("admin").runCommand(new Document("hello", 1));
            Instant after = Instant.now().plus(ahead);

            Instant localTime = reply.getDate("localTime").toInstant();
            assertTrue(
                    !localTime.isBefore(before.minusSeconds(1)) && !localTime.isAfter(after.plusSeconds(1)),
                    "the server's clock, two hours ahead: " + localTime);
            assertEquals(true, reply.get("isWritablePrimary"), reply.toJson());
            assertFalse(reply.containsKey("ismaster"), "isMaster's name for it: " + reply.toJson());
            assertEquals(1.0, ((Number) reply.get("ok")).doubleValue(), reply.toJson());
        } finally {
            server.shutdownNow();
        }
    }
}
