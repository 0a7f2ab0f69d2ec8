package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import java.nio.file.Path;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable backend in this JVM: a reply to a write comes only after its commit, and reads commit nothing.
 * {@link EmbeddedDurabilityProcessTest} kills a real server to check the same from outside.
 */
class DurableH2BackendTest {

    @TempDir
    Path dir;

    private DurableH2Backend backend;
    private MongoServer server;
    private MongoClient client;

    @BeforeEach
    void start() {
        backend = DurableH2Backend.open(dir.resolve("standby.mv"));
        server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        client = MongoClients.create(
                "mongodb://127.0.0.1:" + server.getLocalAddress().getPort());
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void everyAcknowledgedWriteIsCommittedBeforeItsReply() {
        MongoCollection<Document> robots = client.getDatabase("standby").getCollection("robots");
        robots.insertOne(new Document("_id", "c1").append("count", 0));
        assertFalse(backend.getMvStore().hasUnsavedChanges());
        robots.updateOne(Filters.eq("_id", "c1"), Updates.inc("count", 1));
        assertFalse(backend.getMvStore().hasUnsavedChanges());
        robots.deleteOne(Filters.eq("_id", "c1"));
        assertFalse(backend.getMvStore().hasUnsavedChanges());
    }

    @Test
    void helloIsAnsweredWithTheServersClockAndCommitsNothing() {
        long version = backend.getMvStore().getCurrentVersion();
        Document reply = client.getDatabase("standby").runCommand(new Document("hello", 1));
        assertTrue(reply.get("localTime") instanceof Date, reply.toJson());
        assertEquals(true, reply.get("isWritablePrimary"), reply.toJson());
        assertEquals(version, backend.getMvStore().getCurrentVersion());
    }

    @Test
    void readsCommitNothing() {
        MongoCollection<Document> robots = client.getDatabase("standby").getCollection("robots");
        robots.insertOne(new Document("_id", "c1"));
        long version = backend.getMvStore().getCurrentVersion();
        robots.find().first();
        robots.countDocuments();
        robots.aggregate(List.of(new Document("$match", new Document()))).first();
        assertEquals(version, backend.getMvStore().getCurrentVersion());
    }

    @Test
    void onlyKnownReadsSkipTheCommit() {
        assertTrue(ReadOnlyCommands.contains("find", Map.of()));
        assertTrue(ReadOnlyCommands.contains("isMaster", Map.of()));
        assertTrue(ReadOnlyCommands.contains("aggregate", Map.of("pipeline", List.of(Map.of("$match", Map.of())))));
        assertFalse(ReadOnlyCommands.contains("aggregate", Map.of("pipeline", List.of(Map.of("$out", "copy")))));
        assertFalse(ReadOnlyCommands.contains("aggregate", Map.of("pipeline", List.of(Map.of("$merge", "copy")))));
        assertFalse(ReadOnlyCommands.contains("aggregate", Map.of()));
        assertFalse(ReadOnlyCommands.contains("update", Map.of()));
        assertFalse(ReadOnlyCommands.contains("findAndModify", Map.of()));
        assertFalse(ReadOnlyCommands.contains("aCommandNobodyKnowsYet", Map.of()));
    }
}
