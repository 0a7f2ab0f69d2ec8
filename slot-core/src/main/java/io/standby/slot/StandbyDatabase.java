package io.standby.slot;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.MongoIncompatibleDriverException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.ServerAddress;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.connection.ServerType;
import com.mongodb.event.ServerDescriptionChangedEvent;
import com.mongodb.event.ServerListener;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection to the database that holds the slots, with the settings the protocol relies on, whatever the connection
 * string asks for: every write waits for a majority (an acknowledged renewal or checkpoint survives a failover), every
 * read goes to the primary with read concern {@code majority} (it never shows what a failover may roll back, nor lags
 * behind), and every operation has a client-side timeout, so that no call can hang a protocol thread.
 */
public final class StandbyDatabase implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StandbyDatabase.class);

    public static final String DEFAULT_URI = "mongodb://127.0.0.1:27017";
    public static final String DEFAULT_NAME = "standby";
    private static final Pattern DB_NAME = Pattern.compile("[A-Za-z0-9_-]{1,63}");

    private final MongoClient client;
    /** Whether {@link #close()} closes the client: false for an application's own client ({@link #of}). */
    private final boolean ownsClient;

    private final MongoDatabase database;
    private final String hosts;
    /** The replica set the URI names, or null. */
    private final String replicaSet;
    /** What the driver's monitors last found at each address: to say why no server could be selected. */
    private final Map<ServerAddress, ServerType> seen;

    private StandbyDatabase(
            MongoClient client,
            boolean ownsClient,
            MongoDatabase database,
            String hosts,
            String replicaSet,
            Map<ServerAddress, ServerType> seen) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.replicaSet = replicaSet;
        this.seen = seen;
        this.database = database;
        this.hosts = hosts;
    }

    /**
     * Connects lazily (the driver connects on first use); {@link #ping()} checks reachability.
     *
     * @param uri a {@code mongodb://} or {@code mongodb+srv://} URI
     * @param name the database name
     * @param operationTimeout the bound on every operation, including server selection
     * @param settings further client settings (for example a command listener), or null
     * @throws IllegalArgumentException naming the bad value if the URI or database name is malformed
     */
    public static StandbyDatabase connect(
            String uri, String name, Duration operationTimeout, Consumer<MongoClientSettings.Builder> settings) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(name, "name");
        ConnectionString connection;
        try {
            connection = new ConnectionString(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid MongoDB URI '" + uri + "': " + e.getMessage(), e);
        }
        if (!DB_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "invalid database name '" + name + "': use letters, digits, '_' or '-' (at most 63)");
        }
        warnIfWeaker(connection);
        long timeoutMs = Math.max(1, operationTimeout.toMillis());
        MongoClientSettings.Builder builder = MongoClientSettings.builder()
                .applyConnectionString(connection)
                .writeConcern(WriteConcern.MAJORITY)
                .readConcern(ReadConcern.MAJORITY)
                .readPreference(ReadPreference.primary())
                .applyToClusterSettings(c -> c.serverSelectionTimeout(timeoutMs, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(s -> s.connectTimeout((int) Math.min(timeoutMs, 10_000), TimeUnit.MILLISECONDS))
                // Client-side operation timeout (driver 5.2+): bounds server selection, connection checkout
                // and the round trip of every operation, and is sent to the server as maxTimeMS.
                .timeout(timeoutMs, TimeUnit.MILLISECONDS);
        Map<ServerAddress, ServerType> seen = new ConcurrentHashMap<>();
        builder.applyToServerSettings(s -> s.addServerListener(new ServerListener() {
            @Override
            public void serverDescriptionChanged(ServerDescriptionChangedEvent event) {
                seen.put(
                        event.getNewDescription().getAddress(),
                        event.getNewDescription().getType());
            }
        }));
        if (settings != null) {
            settings.accept(builder);
        }
        MongoClient client = MongoClients.create(builder.build());
        return new StandbyDatabase(
                client,
                true,
                client.getDatabase(name),
                String.join(",", connection.getHosts()),
                connection.getRequiredReplicaSetName(),
                seen);
    }

    /**
     * The database through a client the application opened and closes itself (a Spring {@code MongoClient} bean, say):
     * {@link #close()} leaves it open. The protocol's settings are applied to the database instead of the client:
     * majority writes and reads from the primary, and {@code operationTimeout} on every operation (driver 5.2+
     * {@code timeoutMS}), whatever the client was configured with.
     *
     * @throws IllegalArgumentException naming the bad value if the database name is malformed
     */
    public static StandbyDatabase of(MongoClient client, String name, Duration operationTimeout) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(name, "name");
        if (!DB_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "invalid database name '" + name + "': use letters, digits, '_' or '-' (at most 63)");
        }
        MongoDatabase database = client.getDatabase(name)
                .withWriteConcern(WriteConcern.MAJORITY)
                .withReadConcern(ReadConcern.MAJORITY)
                .withReadPreference(ReadPreference.primary())
                .withTimeout(Math.max(1, operationTimeout.toMillis()), TimeUnit.MILLISECONDS);
        String hosts = String.join(
                ",",
                client.getClusterDescription().getClusterSettings().getHosts().stream()
                        .map(ServerAddress::toString)
                        .toList());
        return new StandbyDatabase(
                client,
                false,
                database,
                hosts,
                client.getClusterDescription().getClusterSettings().getRequiredReplicaSetName(),
                new ConcurrentHashMap<>());
    }

    /** The collection with the guarantees the protocol relies on, even if it came from another client. */
    public static <T> MongoCollection<T> safe(MongoCollection<T> collection) {
        return collection
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.MAJORITY)
                .withWriteConcern(WriteConcern.MAJORITY);
    }

    private static void warnIfWeaker(ConnectionString connection) {
        if (connection.getWriteConcern() != null
                && !connection.getWriteConcern().equals(WriteConcern.MAJORITY)) {
            log.warn(
                    "Ignoring the write concern of the URI ({}): Standby writes with w: majority",
                    connection.getWriteConcern().asDocument().toJson());
        }
        if (connection.getReadPreference() != null
                && !connection.getReadPreference().equals(ReadPreference.primary())) {
            log.warn(
                    "Ignoring readPreference={} of the URI: Standby reads from the primary",
                    connection.getReadPreference().getName());
        }
        if (connection.getReadConcern() != null
                && !connection.getReadConcern().equals(ReadConcern.MAJORITY)
                && !connection.getReadConcern().equals(ReadConcern.DEFAULT)) {
            log.warn("Ignoring readConcernLevel of the URI: Standby reads with read concern majority");
        }
    }

    /**
     * Checks that the database answers.
     *
     * @throws IllegalStateException with a one-line message naming the hosts if it does not
     */
    public void ping() {
        try {
            // buildInfo answers as ping does (before authentication too) and names the version: one round trip.
            requireMinimumVersion(
                    database.runCommand(new Document("buildInfo", 1)).getString("version"));
        } catch (MongoIncompatibleDriverException e) {
            int wire = client.getClusterDescription().getServerDescriptions().stream()
                    .mapToInt(d -> d.getMaxWireVersion())
                    .max()
                    .orElse(-1);
            throw new IllegalStateException(
                    "MongoDB at " + hosts + " is " + versionOfWire(wire) + "; " + MINIMUM_REASON, e);
        } catch (MongoTimeoutException e) {
            List<String> standalones = seen.entrySet().stream()
                    .filter(entry -> entry.getValue() == ServerType.STANDALONE)
                    .map(entry -> entry.getKey().toString())
                    .sorted()
                    .toList();
            if (replicaSet != null && !standalones.isEmpty()) {
                throw new IllegalStateException(
                        "the URI names replica set '" + replicaSet + "', but MongoDB at "
                                + String.join(",", standalones) + " is a standalone server: remove replicaSet="
                                + replicaSet + " from the URI",
                        e);
            }
            throw new IllegalStateException("cannot reach MongoDB at " + hosts + " (no answer in time)", e);
        } catch (MongoException e) {
            throw new IllegalStateException("MongoDB at " + hosts + " failed: " + firstLine(e.getMessage()), e);
        }
    }

    /** Why 4.2: lease expiry is judged by the server's clock, with $$NOW in a query's $expr. */
    static final String MINIMUM_REASON =
            "Standby needs MongoDB 4.2 or newer ($$NOW in $expr judges leases by the database's clock)";

    private void requireMinimumVersion(String version) {
        String[] parts = version == null ? new String[0] : version.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            if (major < 4 || major == 4 && minor < 2) {
                throw new IllegalStateException(
                        "MongoDB at " + hosts + " is version " + version + "; " + MINIMUM_REASON);
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            // An unusual version string (a fork, say): the server answered, and the driver checked its wire version.
        }
    }

    /** The MongoDB release of a wire version, for messages about servers the driver refuses. */
    private static String versionOfWire(int wire) {
        return switch (wire) {
            case 7 -> "version 4.0 (wire version 7)";
            case 6 -> "version 3.6 (wire version 6)";
            case 5 -> "version 3.4 (wire version 5)";
            case 4 -> "version 3.2 (wire version 4)";
            default -> "too old (wire version " + wire + ")";
        };
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    public MongoClient client() {
        return client;
    }

    public MongoDatabase database() {
        return database;
    }

    /** The hosts of the URI, for messages. */
    public String hosts() {
        return hosts;
    }

    /** Closes the client, unless it is the application's own ({@link #of}). */
    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }
}
