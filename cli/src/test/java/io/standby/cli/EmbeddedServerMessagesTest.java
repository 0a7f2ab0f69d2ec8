package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import io.standby.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code standby mongo} as a process, asked what mongosh asks at every connect and what a node asks at every start: the
 * clients get their answers (an error where the server lacks a command) and the server's log stays free of errors,
 * warnings and stack traces.
 */
class EmbeddedServerMessagesTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--in-memory", "--data"})
    void mongoshsAndNodesQuestionsLeaveTheLogQuiet(String storage) throws Exception {
        int port = StandbyProcess.freePorts(1).getFirst();
        String[] args = storage.equals("--data")
                ? new String[] {
                    "mongo",
                    "--port",
                    Integer.toString(port),
                    "--data",
                    dir.resolve("data").toString()
                }
                : new String[] {"mongo", "--port", Integer.toString(port), "--in-memory"};
        // The logging the command ships with, not the tests' own.
        try (ChildJvm server =
                StandbyProcess.start(dir, "mongo-" + port, List.of("-Dstandby.log.builtin=true"), args)) {
            server.awaitOutput("Embedded MongoDB listening", WAIT);
            try (MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + port)) {
                MongoDatabase admin = client.getDatabase("admin");
                MongoCommandException atlas = assertThrows(
                        MongoCommandException.class, () -> admin.runCommand(new Document("atlasVersion", 1)));
                assertEquals(59, atlas.getErrorCode(), "the client is told: no such command");
                assertThrows(
                        MongoCommandException.class,
                        () -> admin.runCommand(
                                new Document("getParameter", 1).append("featureCompatibilityVersion", 1)));
                MongoDatabase standby = client.getDatabase("standby");
                standby.getCollection("robots").createIndex(Indexes.ascending("slotId", "epoch"));
                standby.getCollection("robots").insertOne(new Document("_id", "r1"));
                assertEquals(1, standby.getCollection("robots").countDocuments(), "it still serves");
            }
            String log = server.output();
            for (String noise : new String[] {"ERROR", "WARN", "\tat ", "Exception"}) {
                assertFalse(log.contains(noise), "'" + noise + "' in the server's log:\n" + log);
            }
        }
    }
}
