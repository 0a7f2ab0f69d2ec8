package io.standby.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fixture's promises, on this run's database: every test gets a database of its own, empty, still there for its
 * {@code @AfterEach} methods, and dropped (its connection closed) after them.
 */
class TestDatabaseTest {

    /** What the tests saw: checked once they have all ended. */
    private static final List<Connection> seen = new CopyOnWriteArrayList<>();

    record Connection(MongoClient client, MongoDatabase database) implements AutoCloseable {
        @Override
        public void close() {
            client.close();
        }
    }

    @RegisterExtension
    final TestDatabase<Connection> database = TestDatabase.of(
            (uri, name) -> {
                MongoClient client = MongoClients.create(uri);
                return new Connection(client, client.getDatabase(name));
            },
            Connection::database);

    @RepeatedTest(3)
    void eachTestStartsOnAnEmptyDatabaseOfItsOwn() {
        MongoDatabase mine = database.connection().database();
        assertEquals(database.name(), mine.getName());
        assertEquals(0, mine.getCollection("things").countDocuments(), "a fresh database");
        mine.getCollection("things").insertOne(new Document("by", database.name()));
        seen.add(database.connection());
    }

    @AfterEach
    void theDatabaseIsStillThereForTheTestsOwnTearDown() {
        assertEquals(1, database.connection().database().getCollection("things").countDocuments());
    }

    @AfterAll
    static void everyDatabaseWasDroppedAndItsConnectionClosed() {
        List<String> names = seen.stream().map(c -> c.database().getName()).toList();
        assertEquals(3, new HashSet<>(names).size(), "a database of its own each: " + names);
        try (MongoClient client = MongoClients.create(TestMongo.uri())) {
            List<String> left = client.listDatabaseNames().into(new ArrayList<>());
            assertTrue(names.stream().noneMatch(left::contains), "dropped: " + names + ", left: " + left);
        }
        for (Connection connection : seen) {
            assertThrows(
                    IllegalStateException.class,
                    () -> connection.database().listCollectionNames().first(),
                    "closed");
        }
    }
}
