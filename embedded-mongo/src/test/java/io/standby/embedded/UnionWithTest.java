package io.standby.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.Filters;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.Test;

/**
 * {@code $unionWith} on the embedded server, over the wire, as a node's poll sends it; and a plain server's refusal.
 */
class UnionWithTest {

    @Test
    void theUnionAppendsEachCollectionsOwnPipelineAfterTheFirst() {
        withServer(new StandbyMemoryBackend(), db -> {
            db.getCollection("slots").insertMany(List.of(doc("slot-0", 1), doc("slot-1", 2), doc("slot-2", 3)));
            db.getCollection("owners").insertMany(List.of(doc("owner:a", 7), doc("owner:b", 8)));
            Bson now = Aggregates.addFields(new Field<>("now", "$$NOW"));
            List<Document> read = db.getCollection("slots")
                    .aggregate(List.of(
                            Aggregates.match(Filters.gte("n", 2)),
                            now,
                            Aggregates.unionWith("owners", List.of(Aggregates.match(Filters.eq("n", 8)), now)),
                            Aggregates.unionWith("owners", List.of())))
                    .batchSize(2)
                    .into(new ArrayList<>());
            assertEquals(
                    List.of("slot-1", "slot-2", "owner:b", "owner:a", "owner:b"),
                    read.stream().map(d -> d.getString("_id")).toList());
            assertTrue(read.subList(0, 3).stream().allMatch(d -> d.get("now") instanceof Date), "each part's stages");
            assertEquals(null, read.get(3).get("now"), "the last union's pipeline is empty");
        });
    }

    @Test
    void aUnionBeforeAnotherStageIsRefusedWithAMessage() {
        withServer(new StandbyMemoryBackend(), db -> {
            db.getCollection("slots").insertOne(doc("slot-0", 1));
            MongoCommandException refused = assertThrows(
                    MongoCommandException.class,
                    () -> db.getCollection("slots")
                            .aggregate(List.of(Aggregates.unionWith("owners", List.of()), Aggregates.limit(1)))
                            .first());
            assertEquals(UnionWith.BAD_STAGE, refused.getErrorCode());
            assertTrue(refused.getErrorMessage().contains("only at a pipeline's end"), refused.getErrorMessage());
        });
    }

    /**
     * What a node's poll relies on to fall back to two commands: the stock server refuses the stage by MongoDB's code.
     */
    @Test
    void theStockServerRefusesTheStageWithMongoDBsCode() {
        withServer(new MemoryBackend(), db -> {
            db.getCollection("slots").insertOne(doc("slot-0", 1));
            MongoCommandException refused = assertThrows(
                    MongoCommandException.class,
                    () -> db.getCollection("slots")
                            .aggregate(List.of(Aggregates.unionWith("owners", List.of())))
                            .first());
            assertEquals(UnionWith.BAD_STAGE, refused.getErrorCode(), refused.getErrorMessage());
        });
    }

    private static Document doc(String id, int n) {
        return new Document("_id", id).append("n", n);
    }

    private static void withServer(MemoryBackend backend, java.util.function.Consumer<MongoDatabase> test) {
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        try (MongoClient client = MongoClients.create(
                "mongodb://127.0.0.1:" + server.getLocalAddress().getPort())) {
            test.accept(client.getDatabase("union"));
        } finally {
            server.shutdownNow();
        }
    }
}
