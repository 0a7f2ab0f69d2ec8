package io.standby.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Random;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The indexed server ({@link IndexedMemoryBackend}) answers exactly as the stock one, which scans: random slot-like
 * documents (owners, free slots, missing fields, nulls, mixed number types, a few of the wrong type), changed at random
 * between reads, and random filters of the shapes a poll, a claim and a renewal send, read by {@code find}, by an
 * aggregation that starts with the filter, counted, and updated; after every change both collections hold the same
 * documents.
 */
class IndexedCollectionTest {

    private static final List<String> IPS = List.of("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.1.23");
    private static final long T0 = 1_800_000_000_000L;

    private final Random random = new Random(20261129);
    private MongoServer stockServer;
    private MongoServer indexedServer;
    private MongoClient stockClient;
    private MongoClient indexedClient;
    private MongoCollection<Document> stock;
    private MongoCollection<Document> indexed;

    @BeforeEach
    void start() {
        stockServer = server(new MemoryBackend());
        indexedServer = server(new IndexedMemoryBackend());
        stockClient = MongoClients.create(uri(stockServer));
        indexedClient = MongoClients.create(uri(indexedServer));
        stock = stockClient.getDatabase("standby").getCollection("slots");
        indexed = indexedClient.getDatabase("standby").getCollection("slots");
    }

    @AfterEach
    void stop() {
        stockClient.close();
        indexedClient.close();
        stockServer.shutdownNow();
        indexedServer.shutdownNow();
    }

    @Test
    void answersEveryPollClaimAndRenewalFilterAsAScanDoes() {
        both(c -> c.createIndex(Indexes.ascending("time"), new IndexOptions().name("time")));
        both(c -> c.createIndex(Indexes.ascending("ip", "port"), new IndexOptions().name("ip_port")));
        both(c -> c.createIndex(Indexes.ascending("bucket"), new IndexOptions().name("bucket")));
        List<Document> docs = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            docs.add(slot(i));
        }
        for (int i = 0; i < 5; i++) {
            docs.add(new Document("_id", "owner:10.0.0." + i + ":7000/" + i).append("epoch", (long) i));
        }
        both(c -> c.insertMany(docs.stream().map(Document::new).toList()));
        int compared = 0;
        for (int round = 0; round < 60; round++) {
            for (int f = 0; f < 10; f++) {
                Document filter = filter();
                assertSameAnswers(filter);
                compared++;
            }
            change();
        }
        assertTrue(compared >= 600);
        assertEquals(all(stock), all(indexed));
    }

    @Test
    void anArrayInAnIndexedFieldMakesTheIndexStepAsideNotMissDocuments() {
        both(c -> c.createIndex(Indexes.ascending("time"), new IndexOptions().name("time")));
        both(c -> c.createIndex(Indexes.ascending("ip", "port"), new IndexOptions().name("ip_port")));
        List<Document> docs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            docs.add(slot(i));
        }
        docs.add(new Document("_id", "multi")
                .append("ip", Arrays.asList(null, "10.0.0.1"))
                .append("port", 7000));
        docs.add(new Document("_id", "times")
                .append("ip", "10.0.0.2")
                .append("time", List.of(new Date(T0), new Date(T0 + 50_000))));
        both(c -> c.insertMany(docs.stream().map(Document::new).toList()));
        for (int f = 0; f < 200; f++) {
            assertSameAnswers(filter());
        }
        assertSameAnswers(new Document("ip", null));
        assertSameAnswers(
                new Document("time", new Document("$gt", new Date(T0 + 40_000)).append("$lt", new Date(T0 + 10_000))));
        // Once the arrays are gone, the indexes answer again, still as the scan does.
        both(c -> c.deleteMany(new Document("_id", new Document("$in", List.of("multi", "times")))));
        for (int f = 0; f < 200; f++) {
            assertSameAnswers(filter());
        }
    }

    private void assertSameAnswers(Document filter) {
        assertEquals(ids(stock.find(filter)), ids(indexed.find(filter)), () -> "find " + filter.toJson());
        List<Bson> pipeline =
                List.of(new Document("$match", filter), new Document("$addFields", new Document("now", "$$NOW")));
        assertEquals(
                ids(stock.aggregate(pipeline)), ids(indexed.aggregate(pipeline)), () -> "aggregate " + filter.toJson());
        assertEquals(stock.countDocuments(filter), indexed.countDocuments(filter), () -> "count " + filter.toJson());
        List<Bson> sorted = List.of(new Document("$match", filter), new Document("$sort", new Document("time", -1)));
        assertEquals(ids(stock.aggregate(sorted)), ids(indexed.aggregate(sorted)), () -> "sorted " + filter.toJson());
    }

    /** Random writes, the same on both: claims, renewals, releases, revocations, and now and then a new slot. */
    private void change() {
        for (int i = 0; i < 10; i++) {
            Document filter = random.nextInt(4) == 0 ? filter() : new Document("_id", "slot-" + random.nextInt(420));
            Document update = switch (random.nextInt(5)) {
                case 0 ->
                    new Document("$set", new Document("ip", ip()).append("port", port()))
                            .append("$inc", new Document("epoch", 1L))
                            .append("$currentDate", new Document("lastSeen", true));
                case 1 -> new Document("$set", new Document("time", time()));
                case 2 ->
                    new Document(
                            "$set",
                            new Document("ip", null).append("port", null).append("time", new Date(0)));
                case 3 -> new Document("$unset", new Document(random.nextBoolean() ? "ip" : "time", ""));
                default -> new Document("$set", new Document("bucket", bucket()));
            };
            boolean many = random.nextBoolean();
            long stockMatched = many
                    ? stock.updateMany(filter, update).getMatchedCount()
                    : stock.updateOne(filter, update).getMatchedCount();
            long indexedMatched = many
                    ? indexed.updateMany(filter, update).getMatchedCount()
                    : indexed.updateOne(filter, update).getMatchedCount();
            assertEquals(stockMatched, indexedMatched, () -> "update " + filter.toJson());
        }
        if (random.nextInt(5) == 0) {
            Document gone = new Document("_id", "slot-" + random.nextInt(420));
            assertEquals(
                    stock.deleteOne(gone).getDeletedCount(),
                    indexed.deleteOne(gone).getDeletedCount());
        }
        if (random.nextInt(3) == 0) {
            Document added = slot(400 + random.nextInt(20));
            if (stock.countDocuments(new Document("_id", added.get("_id"))) == 0) {
                both(c -> c.insertOne(new Document(added)));
            }
        }
        assertEquals(all(stock), all(indexed));
    }

    /** A filter of one of the protocol's shapes, with random values, sometimes wrapped or combined. */
    private Document filter() {
        Document filter = switch (random.nextInt(11)) {
            case 0, 1, 2 -> poll();
            case 3 ->
                new Document("_id", "slot-" + random.nextInt(420))
                        .append("epoch", (long) random.nextInt(4))
                        .append("time", new Document("$gte", time()).append("$lt", time()))
                        .append("$expr", new Document("$lt", List.of("$epoch", 3)));
            case 4 -> new Document("ip", ip()).append("port", port());
            case 5 -> new Document("ip", new Document("$in", Arrays.asList(ip(), ip(), null)));
            case 6 -> new Document("time", range());
            case 7 -> new Document("$and", List.of(poll(), new Document("ip", ip())));
            case 8 -> renewal();
            // The sweep of owner documents left among the slots: a range of ids.
            case 9 ->
                new Document(
                                "_id",
                                new Document("$gte", random.nextBoolean() ? "owner:" : "slot-" + random.nextInt(42))
                                        .append("$lt", random.nextBoolean() ? "owner;" : "slot-" + random.nextInt(420)))
                        .append("$expr", new Document("$lt", List.of("$epoch", 2)));
            default -> new Document("port", port()).append("ip", new Document("$ne", null));
        };
        return filter;
    }

    /** An owner's renewal of its slots: an {@code _id $in} per epoch, alone or in an {@code $or}. */
    private Document renewal() {
        List<Document> branches = new ArrayList<>();
        for (int e = random.nextInt(3); e >= 0; e--) {
            List<String> ids = new ArrayList<>();
            for (int i = random.nextInt(30); i >= 0; i--) {
                ids.add("slot-" + random.nextInt(420));
            }
            branches.add(new Document("_id", new Document("$in", ids))
                    .append("epoch", (long) random.nextInt(4))
                    .append("ip", ip()));
        }
        return branches.size() == 1 ? branches.getFirst() : new Document("$or", branches);
    }

    private Document poll() {
        List<Document> branches = new ArrayList<>();
        if (random.nextBoolean()) {
            branches.add(new Document("ip", null));
        } else {
            List<Document> buckets = new ArrayList<>();
            buckets.add(new Document("bucket", null));
            for (int r = random.nextInt(4); r >= 0; r--) {
                int from = random.nextInt(64) * 1024;
                buckets.add(new Document(
                        "bucket", new Document("$gte", from).append("$lt", from + 1024 * (1 + random.nextInt(8)))));
            }
            branches.add(new Document("ip", null).append("$or", buckets));
        }
        branches.add(new Document("ip", ip()).append("port", port()));
        branches.add(new Document("time", new Document("$gt", new Date(0)).append("$lt", time()))
                .append("ip", new Document("$ne", null)));
        return new Document("$or", branches);
    }

    private Document range() {
        Document range = new Document();
        switch (random.nextInt(4)) {
            case 0 -> range.append("$gt", time());
            case 1 -> range.append("$gte", time()).append("$lte", time());
            case 2 -> range.append("$lt", time());
            default -> range.append("$gt", time()).append("$lt", time()).append("$gte", time());
        }
        return range;
    }

    private Document slot(int i) {
        Document doc = new Document("_id", "slot-" + i);
        if (random.nextInt(10) != 0) {
            doc.append("bucket", bucket());
        }
        if (random.nextInt(3) == 0) {
            doc.append("ip", null).append("port", null).append("time", new Date(0));
        } else if (random.nextInt(10) != 0) {
            doc.append("ip", ip()).append("port", port()).append("time", time());
        }
        return doc.append("epoch", (long) random.nextInt(4));
    }

    private String ip() {
        return IPS.get(random.nextInt(IPS.size()));
    }

    /** Mostly an int, sometimes a long or a double of the same number, or the wrong type. */
    private Object port() {
        int port = 7000 + random.nextInt(4);
        return switch (random.nextInt(8)) {
            case 0 -> (long) port;
            case 1 -> (double) port;
            case 2 -> Integer.toString(port);
            default -> port;
        };
    }

    /** Heartbeats on a few seconds' grid, so that bounds often meet values exactly; now and then not a date. */
    private Object time() {
        int kind = random.nextInt(12);
        if (kind == 0) {
            return T0 + random.nextInt(10) * 10_000L;
        }
        return new Date(T0 + random.nextInt(10) * 10_000L);
    }

    private Object bucket() {
        int bucket = random.nextInt(65_536);
        return random.nextInt(10) == 0 ? (long) bucket : bucket;
    }

    private void both(java.util.function.Consumer<MongoCollection<Document>> action) {
        action.accept(stock);
        action.accept(indexed);
    }

    private static List<Object> ids(Iterable<Document> docs) {
        List<Object> ids = new ArrayList<>();
        docs.forEach(d -> ids.add(d.get("_id")));
        return ids;
    }

    private static List<String> all(MongoCollection<Document> c) {
        List<String> docs = new ArrayList<>();
        c.find().forEach(d -> {
            d.remove("lastSeen");
            docs.add(d.toJson());
        });
        return docs;
    }

    private static MongoServer server(MongoBackend backend) {
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        return server;
    }

    private static String uri(MongoServer server) {
        return "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
    }
}
