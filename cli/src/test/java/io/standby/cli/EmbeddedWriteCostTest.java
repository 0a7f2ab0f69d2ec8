package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.standby.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one acknowledged write costs on {@code standby mongo}: sequential single-document updates with write concern
 * majority, one client, against a real server process, with {@code --data} and, for reference, {@code --in-memory}.
 * Prints {@code BENCHMARK} lines (docs/BENCHMARKS.md has the numbers) and asserts only that every write was applied. A
 * benchmark, not part of {@code mvn verify}: it runs when {@code -Dstandby.bench.writes=N} sets the count.
 */
@EnabledIfSystemProperty(named = "standby.bench.writes", matches = "\\d+")
class EmbeddedWriteCostTest {

    private static final int WRITES = Integer.getInteger("standby.bench.writes", 300);
    private static final int WARM_UP = 200;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private final List<ChildJvm> servers = new ArrayList<>();

    @AfterEach
    void stopServers() throws Exception {
        for (ChildJvm server : servers) {
            server.close();
        }
    }

    @Test
    void sequentialAcknowledgedUpdates() throws Exception {
        Path data = dir.resolve("data");
        measure("--data", "--data", data.toString());
        measure("--in-memory", "--in-memory");
    }

    private void measure(String label, String... storage) throws Exception {
        Path file = storage[0].equals("--data") ? Path.of(storage[1], "standby.mv") : null;
        int port = StandbyProcess.freePorts(1).get(0);
        List<String> args = new ArrayList<>(List.of("mongo", "--host", "127.0.0.1", "--port", Integer.toString(port)));
        args.addAll(List.of(storage));
        ChildJvm server = StandbyProcess.start(dir, "mongo-" + port, args.toArray(String[]::new));
        servers.add(server);
        server.awaitOutput("Embedded MongoDB listening", Duration.ofSeconds(60));

        MongoClientSettings settings = MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString("mongodb://127.0.0.1:" + port))
                .writeConcern(WriteConcern.MAJORITY)
                .retryWrites(false)
                .applyToClusterSettings(c -> c.serverSelectionTimeout(10, TimeUnit.SECONDS))
                .build();
        try (MongoClient client = MongoClients.create(settings)) {
            MongoCollection<Document> counters = client.getDatabase("bench").getCollection("counters");
            for (int i = 0; i < WARM_UP; i++) {
                increment(counters);
            }
            long[] nanos = new long[WRITES];
            long started = System.nanoTime();
            for (int i = 0; i < WRITES; i++) {
                long t = System.nanoTime();
                increment(counters);
                nanos[i] = System.nanoTime() - t;
                if (file != null && (i + 1) % 10_000 == 0) {
                    // how the file grows over a long run: H2 reuses a commit's space only after 45 s
                    System.out.printf(
                            "BENCHMARK standby mongo %s: after %d writes (%.0f s) data-file=%d KB%n",
                            label, i + 1, (System.nanoTime() - started) / 1e9, Files.size(file) / 1024);
                }
            }
            long took = System.nanoTime() - started;
            assertEquals(WARM_UP + WRITES, counters.find().first().getInteger("n"));

            Arrays.sort(nanos);
            double mean = Arrays.stream(nanos).average().orElse(0) / 1e6;
            String size = file != null ? String.format(" data-file=%d KB", Files.size(file) / 1024) : "";
            System.out.printf(
                    "BENCHMARK standby mongo %s: %d sequential updates (w: majority) %.0f writes/s,"
                            + " latency mean %.2f ms p50 %.2f ms p99 %.2f ms%s%n",
                    label,
                    WRITES,
                    WRITES / (took / 1e9),
                    mean,
                    nanos[WRITES / 2] / 1e6,
                    nanos[(int) (WRITES * 0.99)] / 1e6,
                    size);
        }
        server.close();
    }

    private static void increment(MongoCollection<Document> counters) {
        counters.updateOne(Filters.eq("_id", "counter"), Updates.inc("n", 1), new UpdateOptions().upsert(true));
    }
}
