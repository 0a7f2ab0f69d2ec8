package io.standby.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * {@code standby mongo --in-memory} answers filters on {@code _id} and more exactly as mongo-java-server does, only
 * from its {@code _id} index ({@link IndexedCollection}): same matches, and a write's cost independent of the number of
 * documents. It said "about 3 s" when it had the first two tests; the renewal's test then took 18 s of a loaded
 * machine's time, nearly all in updates: the stock server matches every document an {@code updateMany} changes against
 * the whole filter again, 5,000 documents against 5,000 branches (or ids) each time, after the index had found them.
 * Now each document found is updated by its {@code _id} alone.
 */
class IdLookupTest {

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
            // An owner's renewal of all its slots: one branch per slot, each at its own epoch.
            new Document(
                    "$or",
                    List.of(
                            new Document("_id", "r1").append("epoch", 3L),
                            new Document("_id", "r2").append("epoch", 4L),
                            new Document("_id", "gone").append("epoch", 3L),
                            new Document("_id", "r1").append("slotId", "s-1"))),
            new Document("$or", List.of(new Document("_id", "r1"), new Document("slotId", "s-0"))),
            // The same renewal, a branch per epoch.
            new Document(
                    "$or",
                    List.of(
                            new Document("_id", new Document("$in", List.of("r1", "r2", "gone"))).append("epoch", 3L),
                            new Document("_id", new Document("$in", List.of("r3"))).append("epoch", 4L))),
            new Document(
                    "$or",
                    List.of(
                            new Document("_id", "r1").append("epoch", 3L),
                            new Document("_id", "r7").append("epoch", 4L),
                            new Document("_id", "gone"),
                            new Document("_id", "r4").append("epoch", 3L))),
            new Document("$or", List.of(new Document("_id", "r1"), new Document("slotId", "s-1").append("epoch", 3L))),
            new Document("$or", List.of(new Document("_id", "r2"), new Document("_id", "r3"))).append("node", "n"));

    @Test
    void findsWhatTheStockServerFinds() {
        List<List<Object>> stock = onServer(new MemoryBackend(), robots -> matches(robots));
        List<List<Object>> ours = onServer(new IndexedMemoryBackend(), robots -> matches(robots));
        assertEquals(stock, ours);
        assertEquals(List.of("r1"), ours.get(0));
        assertEquals(List.of(), ours.get(1));
        assertEquals(List.of(), ours.get(3));
        assertEquals(List.of("r1", "r7"), ours.get(5));
        assertEquals(List.of("r1"), ours.get(9), "r2 is at epoch 3, gone is gone, r1 matched twice counts once");
        assertEquals(List.of("r1", "r2"), ours.get(11), "r3 is at epoch 3");
        assertEquals(List.of("r1", "r4"), ours.get(12));
        assertEquals(List.of("r1", "r3", "r5", "r7", "r9"), ours.get(13));
        assertEquals(List.of("r3"), ours.get(14), "a condition beside the $or holds too");
    }

    private static List<List<Object>> matches(MongoCollection<Document> robots) {
        robots.insertMany(IntStream.range(0, 10)
                .mapToObj(i -> new Document("_id", "r" + i)
                        .append("slotId", "s-" + (i % 2))
                        .append("epoch", 3L)
                        .append("seq", 2L)
                        .append("node", i == 2 ? null : "n"))
                .toList());
        List<List<Object>> found = new ArrayList<>();
        for (Document filter : FILTERS) {
            found.add(robots.find(filter).map(d -> d.get("_id")).into(new ArrayList<>()).stream()
                    .sorted()
                    .toList());
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
        double[] millis = onServer(new IndexedMemoryBackend(), robots -> {
            for (int from = 0; from < 20_000; from += 5_000) {
                robots.insertMany(IntStream.range(from, from + 5_000)
                        .mapToObj(i -> new Document("_id", "r" + i)
                                .append("slotId", "s-0")
                                .append("epoch", 3L)
                                .append("seq", 0L))
                        .toList());
            }
            double fenced = Double.MAX_VALUE;
            double byId = Double.MAX_VALUE;
            // Alternating, best of five each: the first rounds warm both paths up.
            for (int round = 1; round <= 5; round++) {
                fenced = Math.min(fenced, writeMillis(robots, true, 2L * round - 1));
                byId = Math.min(byId, writeMillis(robots, false, 2L * round));
            }
            return new double[] {fenced, byId};
        });
        double fenced = millis[0];
        double byIdAlone = millis[1];
        assertTrue(
                fenced < byIdAlone * 20 + 50,
                "1,000 fenced writes among 20,000 documents took " + fenced + " ms, by _id alone " + byIdAlone + " ms");
    }

    @Test
    void aRenewalOfManySlotsInOneOrCostsWhatAnInOfTheirIdsCosts() {
        // Matched whole against every document, an $or of 5,000 branches among 20,000 documents is 10^8
        // branch matches (seconds); branch by branch from the index it is 5,000 lookups, as an $in is.
        double[] millis = onServer(new IndexedMemoryBackend(), slots -> {
            for (int from = 0; from < 20_000; from += 5_000) {
                slots.insertMany(IntStream.range(from, from + 5_000)
                        .mapToObj(i -> new Document("_id", "slot-" + i)
                                .append("epoch", 3L)
                                .append("instance", "a"))
                        .toList());
            }
            List<String> held =
                    IntStream.range(0, 5_000).mapToObj(i -> "slot-" + (i * 4)).toList();
            Document or = new Document(
                    "$or",
                    held.stream()
                            .map(id ->
                                    new Document("_id", id).append("epoch", 3L).append("instance", "a"))
                            .toList());
            Document in = new Document("_id", new Document("$in", held))
                    .append("epoch", 3L)
                    .append("instance", "a");
            double byOr = Double.MAX_VALUE;
            double byIn = Double.MAX_VALUE;
            for (int round = 1; round <= 3; round++) {
                long began = System.nanoTime();
                assertEquals(
                        5_000, slots.updateMany(or, Updates.set("round", round)).getMatchedCount());
                byOr = Math.min(byOr, (System.nanoTime() - began) / 1e6);
                began = System.nanoTime();
                assertEquals(
                        5_000,
                        slots.updateMany(in, Updates.set("round", -round)).getMatchedCount());
                byIn = Math.min(byIn, (System.nanoTime() - began) / 1e6);
            }
            return new double[] {byOr, byIn};
        });
        assertTrue(millis[0] < millis[1] * 20 + 50, "the $or took " + millis[0] + " ms, the $in " + millis[1] + " ms");
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
        assertEquals(
                1_000,
                robots.bulkWrite(writes, new BulkWriteOptions().ordered(false)).getMatchedCount());
        return (System.nanoTime() - began) / 1e6;
    }

    private static <T> T onServer(MongoBackend backend, Function<MongoCollection<Document>, T> work) {
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        try (MongoClient client = MongoClients.create(
                "mongodb://127.0.0.1:" + server.getLocalAddress().getPort())) {
            return work.apply(client.getDatabase("standby").getCollection("robots"));
        } finally {
            server.shutdownNow();
        }
    }
}
