package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import io.standby.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code standby mongo --data} as a real process, killed with SIGKILL right after acknowledging writes: once restarted
 * on the same directory it must hold every write it acknowledged. A write whose reply was lost in the kill may or may
 * not be there; one that was acknowledged must.
 */
class EmbeddedDurabilityProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Kept when a test fails: the servers' own logs are the first thing to read. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private final List<ChildJvm> servers = new ArrayList<>();

    @RegisterExtension
    final AfterTestExecutionCallback dumpOnFailure = context -> {
        if (context.getExecutionException().isPresent()) {
            servers.forEach(server -> System.out.println("----- server pid " + server.pid() + "\n" + server.output()));
        }
    };

    @AfterEach
    void stopServers() throws Exception {
        for (ChildJvm server : servers) {
            server.close();
        }
    }

    @Test
    void everyAcknowledgedWriteSurvivesAKillRightAfterTheLastAcknowledgement() throws Exception {
        Path data = dir.resolve("data");
        int port = StandbyProcess.freePorts(1).get(0);
        ChildJvm server = startServer(data, port);
        long lastCount = 0;
        List<Integer> inserted = new ArrayList<>();
        try (MongoClient client = client(port)) {
            MongoDatabase db = client.getDatabase("durability");
            for (int i = 1; i <= 250; i++) {
                lastCount = increment(db.getCollection("counters"), "counter");
                db.getCollection("events").insertOne(new Document("_id", i));
                inserted.add(i);
            }
            server.kill9();
        }

        int again = StandbyProcess.freePorts(1).get(0);
        startServer(data, again);
        try (MongoClient client = client(again)) {
            MongoDatabase db = client.getDatabase("durability");
            assertEquals(lastCount, count(db.getCollection("counters"), "counter"), "the counter after the restart");
            List<Integer> found = db.getCollection("events")
                    .find()
                    .map(d -> d.getInteger("_id"))
                    .into(new ArrayList<>());
            found.sort(null);
            assertEquals(inserted, found, "the inserted documents after the restart");
        }
    }

    @Test
    void acknowledgedWritesOfConcurrentClientsSurviveAKillWhileWritesAreInFlight() throws Exception {
        int writers = 4;
        Path data = dir.resolve("data");
        int port = StandbyProcess.freePorts(1).get(0);
        ChildJvm server = startServer(data, port);
        AtomicLongArray acknowledgedCount = new AtomicLongArray(writers);
        AtomicLongArray acknowledgedInserts = new AtomicLongArray(writers);
        Queue<String> inserted = new ConcurrentLinkedQueue<>();
        AtomicBoolean killed = new AtomicBoolean();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        try (MongoClient client = client(port)) {
            MongoDatabase db = client.getDatabase("durability");
            for (int w = 0; w < writers; w++) {
                int writer = w;
                threads.add(Thread.ofPlatform().name("writer-" + w).start(() -> {
                    try {
                        for (int i = 1; ; i++) {
                            acknowledgedCount.set(writer, increment(db.getCollection("counters"), "counter-" + writer));
                            String id = writer + "-" + i;
                            db.getCollection("events").insertOne(new Document("_id", id).append("writer", writer));
                            inserted.add(id);
                            acknowledgedInserts.incrementAndGet(writer);
                        }
                    } catch (MongoException e) {
                        if (!killed.get()) {
                            failures.add(e);
                        }
                    }
                }));
            }
            // Kill while every writer is in the middle of its stream of writes, so that some replies
            // are lost with the server and the acknowledged ones end just before the kill.
            await().atMost(WAIT).until(() -> !failures.isEmpty() || minimum(acknowledgedInserts) >= 200);
            killed.set(true);
            server.kill9();
            for (Thread thread : threads) {
                thread.join(WAIT.toMillis());
            }
        }
        assertTrue(failures.isEmpty(), "a write failed before the kill: " + failures);

        int again = StandbyProcess.freePorts(1).get(0);
        startServer(data, again);
        try (MongoClient client = client(again)) {
            MongoDatabase db = client.getDatabase("durability");
            for (int w = 0; w < writers; w++) {
                long count = count(db.getCollection("counters"), "counter-" + w);
                long acknowledged = acknowledgedCount.get(w);
                // One more increment may have reached the disk without its reply reaching the writer.
                assertTrue(
                        count == acknowledged || count == acknowledged + 1,
                        "counter-" + w + " is " + count + " after the restart, " + acknowledged + " was acknowledged");
            }
            Set<String> found = db.getCollection("events")
                    .find()
                    .map(d -> d.getString("_id"))
                    .into(new HashSet<>());
            Set<String> lost = new HashSet<>(inserted);
            lost.removeAll(found);
            assertTrue(
                    lost.isEmpty(),
                    lost.size() + " of " + inserted.size() + " acknowledged inserts lost, e.g. "
                            + lost.stream().limit(5).toList());
        }
    }

    private ChildJvm startServer(Path data, int port) throws Exception {
        ChildJvm server = StandbyProcess.start(
                dir,
                "mongo-" + port,
                "mongo",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--data",
                data.toString());
        servers.add(server);
        server.awaitOutput("Embedded MongoDB listening", WAIT);
        return server;
    }

    private static MongoClient client(int port) {
        return MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString("mongodb://127.0.0.1:" + port))
                .writeConcern(WriteConcern.MAJORITY)
                // A retried write would blur which attempt was acknowledged.
                .retryWrites(false)
                .applyToClusterSettings(c -> c.serverSelectionTimeout(2, TimeUnit.SECONDS))
                .applyToSocketSettings(
                        s -> s.connectTimeout(2, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS))
                .build());
    }

    /** Adds one to a counter and returns the value the server acknowledged. */
    private static long increment(MongoCollection<Document> counters, String id) {
        Document after = counters.findOneAndUpdate(
                Filters.eq("_id", id),
                Updates.inc("n", 1L),
                new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));
        return after.getLong("n");
    }

    private static long count(MongoCollection<Document> counters, String id) {
        Document counter = counters.find(Filters.eq("_id", id)).first();
        return counter == null ? 0 : counter.getLong("n");
    }

    private static long minimum(AtomicLongArray values) {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < values.length(); i++) {
            min = Math.min(min, values.get(i));
        }
        return min;
    }
}
