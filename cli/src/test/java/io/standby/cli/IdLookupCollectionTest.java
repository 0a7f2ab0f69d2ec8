package io.standby.cli;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code standby mongo --in-memory} answers filters on {@code _id} and more exactly as mongo-java-server
 * does, only from its {@code _id} index: same matches, and a write's cost independent of the number of
 * documents. About 3 s.
 */
class IdLookupCollectionTest {

    private static final List<Document> FILTERS = List.of(
            new Document("_id", "r1").append("epoch", 3L),
            new Document("_id", "r1").append("epoch", 4L),
            new Document("_id", "r1").append("epoch", 3L).append("seq", new Document("$lt", 5L)),
            new Document("_id", "r1").append("epoch", 3L).append("seq", new Document("$lt", 1L)),
            new Document("_id", "gone").append("epoch", 3L),
            new Document("_id", new Document("$in", List.of("r1", "r2", "r7", "gone"))).append("slotId", "s-1"),
            new Document("_id", new Document("$gt", "r5")).append("slotId", "s-0"),
            new Document("_id", "r2").append("node", null),
            new Document("slotId", "s-0").append("epoch", 3L),
            new Document("$or", List.of(new Document("_id", "r1").append("epoch", 3L), new Document("_id", "r7").append("epoch", 4L),
                    new Document("_id", "gone"), new Document("_id", "r4").append("epoch", 3L))),
            new Document("$or", List.of(new Document("_id", "r1"), new Document("slotId", "s-1").append("epoch", 3L))),
            new Document("$or", List.of(new Document("_id", "r2"), new Document("_id", "r3"))).append("node", "n"));

    @Test
    void findsWhatTheStockServerFinds() {
        List<List<Object>> stock = onServer(new MemoryBackend(), robots -> matches(robots));
        List<List<Object>> ours = onServer(new QuietMemoryBackend(), robots -> matches(robots));
        assertEquals(stock, ours);
        assertEquals(List.of("r1"), ours.get(0));
        assertEquals(List.of(), ours.get(1));
        assertEquals(List.of(), ours.get(3));
        assertEquals(List.of("r1", "r7"), ours.get(5));
        assertEquals(List.of("r1", "r4"), ours.get(9));
        assertEquals(List.of("r1", "r3", "r5", "r7", "r9"), ours.get(10));
        assertEquals(List.of("r3"), ours.get(11));
    }

    private static List<List<Object>> matches(MongoCollection<Document> robots) {
        robots.insertMany(IntStream.range(0, 10).mapToObj(i -> new Document("_id", "r" + i).append("slotId", "s-" + (i % 2))
                .append("epoch", 3L).append("seq", 2L).append("node", i == 2 ? null : "n")).toList());
        List<List<Object>> found = new ArrayList<>();
        for (Document filter : FILTERS) {
            found.add(robots.find(filter).map(d -> d.get("_id")).into(new ArrayList<>()).stream().sorted().toList());
        }
        // An update under a filter with more conditions changes that document only, and only if they hold.
        robots.updateOne(new Document("_id", "r3").append("seq", new Document("$lt", 3L)), Updates.set("seq", 3L));
        robots.updateOne(new Document("_id", "r4").append("seq", new Document("$lt", 1L)), Updates.set("seq", 9L));
        found.add(robots.find().map(d -> d.get("_id") + "=" + d.get("seq")).into(new ArrayList<>()));
        return found;
    }

    @Test
    void aFencedWriteAmongManyDocumentsCostsWhatAWriteByIdAloneCosts() {
        // The stock server finds {_id: x} alone by its index, and scans every document for {_id: x, more}:
        // among 20,000 documents its fenced writes took over 100 times as long (3.2 s against 20 ms); with
        // the index, less than 10 times (the other conditions are still matched).
        double[] millis = onServer(new QuietMemoryBackend(), robots -> {
            for (int from = 0; from < 20_000; from += 5_000) {
                robots.insertMany(IntStream.range(from, from + 5_000).mapToObj(i -> new Document("_id", "r" + i)
                        .append("slotId", "s-0").append("epoch", 3L).append("seq", 0L)).toList());
            }
            double fenced = Double.MAX_VALUE;
            double byId = Double.MAX_VALUE;
            // Alternating, best of five each: the first rounds warm both paths up.
            for (int round = 1; round <= 5; round++) {
                fenced = Math.min(fenced, writeMillis(robots, true, 2L * round - 1));
                byId = Math.min(byId, writeMillis(robots, false, 2L * round));
            }
            return new double[]{fenced, byId};
        });
        double fenced = millis[0];
        double byIdAlone = millis[1];
        assertTrue(fenced < byIdAlone * 20 + 50, "1,000 fenced writes among 20,000 documents took " + fenced
                + " ms, by _id alone " + byIdAlone + " ms");
    }

    @Test
    void aRenewalOfManySlotsAmongManyDocumentsCostsWhatItsSlotsCost() {
        // An owner renews all its slots with one update whose filter is an $or, one branch per slot, each
        // on _id and more. Scanned, each such update matched all 20,000 documents against 100 branches.
        double[] millis = onServer(new QuietMemoryBackend(), slots -> {
            for (int from = 0; from < 20_000; from += 5_000) {
                slots.insertMany(IntStream.range(from, from + 5_000).mapToObj(i -> new Document("_id", "slot-" + i)
                        .append("epoch", 3L).append("instance", "a").append("time", 0L)).toList());
            }
            List<String> held = IntStream.range(0, 100).mapToObj(i -> "slot-" + i * 200).toList();
            Document renewal = new Document("$or", held.stream().map(id -> new Document("_id", id).append("epoch", 3L)
                    .append("instance", "a")).toList());
            Document byIds = new Document("_id", new Document("$in", held));
            double or = Double.MAX_VALUE;
            double in = Double.MAX_VALUE;
            for (int round = 1; round <= 5; round++) {
                or = Math.min(or, renewMillis(slots, renewal, 2L * round - 1));
                in = Math.min(in, renewMillis(slots, byIds, 2L * round));
            }
            return new double[]{or, in};
        });
        assertTrue(millis[0] < millis[1] * 20 + 50, "20 renewals of 100 slots among 20,000 took " + millis[0]
                + " ms, by an $in of their ids " + millis[1] + " ms");
    }

    /** Twenty updates of the 100 slots {@code filter} matches, in milliseconds. */
    private static double renewMillis(MongoCollection<Document> slots, Document filter, long time) {
        long began = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            assertEquals(100, slots.updateMany(filter, Updates.set("time", time * 100 + i)).getMatchedCount());
        }
        return (System.nanoTime() - began) / 1e6;
    }

    /** One bulk of 1,000 writes, with the fencing conditions or by _id alone, in milliseconds. */
    private static double writeMillis(MongoCollection<Document> robots, boolean fenced, long seq) {
        List<WriteModel<Document>> writes = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            Document filter = new Document("_id", "r" + i);
            if (fenced) {
                filter.append("slotId", "s-0").append("epoch", 3L).append("seq", new Document("$lt", seq));
            }
            writes.add(new UpdateOneModel<>(filter, Updates.set("seq", seq)));
        }
        long began = System.nanoTime();
        assertEquals(1_000, robots.bulkWrite(writes, new BulkWriteOptions().ordered(false)).getMatchedCount());
        return (System.nanoTime() - began) / 1e6;
    }

    private static <T> T onServer(MongoBackend backend, Function<MongoCollection<Document>, T> work) {
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        try (MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + server.getLocalAddress().getPort())) {
            return work.apply(client.getDatabase("standby").getCollection("robots"));
        } finally {
            server.shutdownNow();
        }
    }
}
