package io.standby.testing;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.embedded.StandbyMemoryBackend;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * The database tests run against, chosen once per JVM in this order:
 *
 * <ol>
 *   <li>{@code STANDBY_TEST_MONGO_URI}, if set: a real MongoDB (a replica set is best);
 *   <li>a {@code mongo:7} replica set from Testcontainers, if a Docker engine answers;
 *   <li>otherwise an embedded mongo-java-server on 127.0.0.1 (in memory).
 * </ol>
 *
 * Every test takes a fresh database name from {@link #freshDatabase(String)}, so tests never see each other's documents
 * whatever the mode.
 */
public final class TestMongo {

    public static final String URI_VARIABLE = "STANDBY_TEST_MONGO_URI";
    private static Embedded sharedEmbedded;

    public enum Mode {
        URI,
        TESTCONTAINERS,
        EMBEDDED
    }

    private static final AtomicInteger databases = new AtomicInteger();
    private static Mode mode;
    private static String uri;
    private static Boolean replicaSet;

    private TestMongo() {}

    /** The URI of this run's database, starting it on first use. */
    public static synchronized String uri() {
        if (uri == null) {
            String configured = System.getenv(URI_VARIABLE);
            if (configured != null && !configured.isBlank()) {
                mode = Mode.URI;
                uri = configured;
            } else if (dockerAvailable()) {
                mode = Mode.TESTCONTAINERS;
                uri = startContainer();
            } else {
                mode = Mode.EMBEDDED;
                uri = startEmbedded().uri();
            }
        }
        return uri;
    }

    public static synchronized Mode mode() {
        uri();
        return mode;
    }

    /**
     * Whether this run's database is a replica set, asked of the server ({@code hello} names its set): change streams
     * need one. The embedded server is none; a URI may name either.
     */
    public static synchronized boolean replicaSet() {
        if (mode() == Mode.EMBEDDED) {
            return false;
        }
        if (replicaSet == null) {
            try (MongoClient client = MongoClients.create(uri())) {
                replicaSet = client.getDatabase("admin")
                        .runCommand(new Document("hello", 1))
                        .containsKey("setName");
            }
        }
        return replicaSet;
    }

    /** A database name no other test in this JVM uses. */
    public static String freshDatabase(String prefix) {
        String clean = prefix.replaceAll("[^A-Za-z0-9_-]", "_");
        if (clean.length() > 40) {
            clean = clean.substring(0, 40);
        }
        return clean + "_" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
    }

    public static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            return false;
        }
    }

    /** A mongo:7 single-node replica set; the caller (or the JVM's exit) stops it. */
    public static String startContainer() {
        MongoDBContainer container = new MongoDBContainer("mongo:7");
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
        return container.getReplicaSetUrl();
    }

    /**
     * The URI of one embedded server shared by the tests that must run on mongo-java-server whatever this run's
     * database is (see {@link #uri()}); started at the first call, stopped when the JVM exits.
     */
    public static synchronized String embeddedUri() {
        if (sharedEmbedded == null) {
            sharedEmbedded = startEmbedded();
        }
        return sharedEmbedded.uri();
    }

    /** A new embedded server on 127.0.0.1 and a free port, in memory, that knows {@code $unionWith}. */
    public static Embedded startEmbedded() {
        return startEmbedded(new StandbyMemoryBackend());
    }

    /** A new embedded server on 127.0.0.1 and a free port with this backend (for example a {@link FaultyBackend}). */
    public static Embedded startEmbedded(MemoryBackend backend) {
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        Embedded embedded = new Embedded(server);
        Runtime.getRuntime().addShutdownHook(new Thread(embedded::close));
        return embedded;
    }

    /** An embedded mongo-java-server. */
    public static final class Embedded implements AutoCloseable {
        private final MongoServer server;

        Embedded(MongoServer server) {
            this.server = server;
        }

        public int port() {
            return server.getLocalAddress().getPort();
        }

        public String uri() {
            return "mongodb://127.0.0.1:" + port();
        }

        @Override
        public void close() {
            server.shutdownNow();
        }
    }
}
