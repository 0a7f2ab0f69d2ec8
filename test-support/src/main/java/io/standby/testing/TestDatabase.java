package io.standby.testing;

import com.mongodb.client.MongoDatabase;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh database for every test: before each test (and before its {@code @BeforeEach} methods) it takes a new name
 * from {@link TestMongo#freshDatabase} and opens a connection to it; after each test (and after its {@code @AfterEach}
 * methods, which may still read it) it drops the database and closes the connection. The server is this run's database
 * ({@link TestMongo#uri()}) unless {@link #on} names another, such as a class's own embedded server. Register it on an
 * instance field:
 *
 * <pre>{@code
 * @RegisterExtension
 * final TestDatabase<StandbyDatabase> database = TestDatabase.of(
 *         (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);
 * }</pre>
 *
 * The connection's type is the test's choice (test-support cannot see Standby's types): anything that closes and
 * reaches the database.
 *
 * @param <C> the connection the test works with
 */
public final class TestDatabase<C extends AutoCloseable> implements BeforeEachCallback, AfterEachCallback {

    /** Opens the test's connection to database {@code name} on the server at {@code uri}. */
    @FunctionalInterface
    public interface Connector<C> {
        C connect(String uri, String name);
    }

    private final Supplier<String> server;
    private final Connector<C> connector;
    private final Function<C, MongoDatabase> database;
    private String uri;
    private String name;
    private C connection;

    private TestDatabase(Supplier<String> server, Connector<C> connector, Function<C, MongoDatabase> database) {
        this.server = Objects.requireNonNull(server, "server");
        this.connector = Objects.requireNonNull(connector, "connector");
        this.database = Objects.requireNonNull(database, "database");
    }

    /** A fresh database per test on this run's database, reached through {@code connector}. */
    public static <C extends AutoCloseable> TestDatabase<C> of(
            Connector<C> connector, Function<C, MongoDatabase> database) {
        return new TestDatabase<>(TestMongo::uri, connector, database);
    }

    /** The same on the server at the URI {@code server} gives when each test starts. */
    public TestDatabase<C> on(Supplier<String> server) {
        return new TestDatabase<>(server, connector, database);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        uri = server.get();
        name = TestMongo.freshDatabase(context.getRequiredTestMethod().getName());
        connection = connector.connect(uri, name);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        C opened = connection;
        connection = null;
        if (opened == null) {
            return;
        }
        try (opened) {
            database.apply(opened).drop();
        }
    }

    /** The server's URI. */
    public String uri() {
        return uri;
    }

    /** This test's database name. */
    public String name() {
        return name;
    }

    /** The open connection to this test's database. */
    public C connection() {
        if (connection == null) {
            throw new IllegalStateException("no test is running: the database is opened before each test");
        }
        return connection;
    }
}
