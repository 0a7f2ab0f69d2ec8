package io.standby.robot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RobotDocuments} on MongoDB: the plain reads and writes behind the operator's commands
 * ({@code RobotTable}), on an embedded server. The store contract ({@link RobotStoreContract}) covers the
 * runtime's own operations.
 */
class MongoRobotDocumentsTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private RobotDocuments store;
    private MongoCollection<Document> robots;

    @BeforeEach
    void setUp() {
        StandbyDatabase db = database.connection();
        store = new MongoRobotStore(db);
        robots = db.database().getCollection(RobotFields.COLLECTION);
        for (String id : List.of("c", "a", "d", "b")) {
            assertTrue(store.insert(RobotCodec.newRobot(id, "counter", id.equals("d") ? "slot-1" : "slot-0", 0, 1,
                    new Document("k", id))));
        }
    }

    private static List<Object> ids(List<Document> docs) {
        return docs.stream().map(d -> d.get("_id")).toList();
    }

    @Test
    void findReturnsTheMatchingDocumentsInIdOrderUpToTheLimitZeroMeaningAll() {
        assertEquals(List.of("a", "b", "c", "d"), ids(store.find(new Document(), List.of(), 0)));
        assertEquals(List.of("a", "b"), ids(store.find(new Document(), List.of(), 2)));
        assertEquals(List.of("a", "b", "c"), ids(store.find(Filters.eq(RobotFields.SLOT, "slot-0"), List.of(), 0)));
        assertEquals(List.of(), store.find(Filters.eq(RobotFields.SLOT, "slot-9"), List.of(), 0));
    }

    @Test
    void findLeavesOutTheExcludedFieldsAndOtherwiseReturnsTheWholeDocument() {
        robots.updateOne(Filters.eq("_id", "a"), Updates.set(RobotFields.CONTEXT, new Document("count", 3)));

        Document whole = store.find(Filters.eq("_id", "a"), List.of(), 0).getFirst();
        assertEquals(robots.find(Filters.eq("_id", "a")).first(), whole);

        Document summary = store.find(Filters.eq("_id", "a"), List.of(RobotFields.CONFIG, RobotFields.CONTEXT), 0).getFirst();
        assertFalse(summary.containsKey(RobotFields.CONFIG));
        assertFalse(summary.containsKey(RobotFields.CONTEXT));
        Set<String> expected = whole.keySet().stream().filter(k -> !k.equals(RobotFields.CONFIG) && !k.equals(RobotFields.CONTEXT))
                .collect(Collectors.toSet());
        assertEquals(expected, summary.keySet(), "every other field is there");
    }

    @Test
    void insertRefusesAnIdThatExistsAndKeepsTheFirst() {
        Document first = robots.find(Filters.eq("_id", "a")).first();

        assertFalse(store.insert(RobotCodec.newRobot("a", "mailer", "slot-1", 0, 1, new Document())));

        assertEquals(first, robots.find(Filters.eq("_id", "a")).first());
        assertEquals(4, robots.countDocuments());
    }

    @Test
    void updateChangesOneOrEveryMatchAndCountsMatchesEvenWhereNothingChanged() {
        assertEquals(1, store.update(Filters.eq(RobotFields.SLOT, "slot-0"), Updates.set(RobotFields.STATE, "STOPPED"), false));
        assertEquals(1, robots.countDocuments(Filters.eq(RobotFields.STATE, "STOPPED")), "one document changed");

        assertEquals(3, store.update(Filters.eq(RobotFields.SLOT, "slot-0"), Updates.set(RobotFields.STATE, "STOPPED"), true),
                "all three matched, one of them already STOPPED");
        assertEquals(3, robots.countDocuments(Filters.eq(RobotFields.STATE, "STOPPED")));
        assertEquals(0, store.update(Filters.eq("_id", "nobody"), Updates.set(RobotFields.STATE, "STOPPED"), false));
    }

    @Test
    void deleteOneDeletesASingleMatchAndSaysWhetherItDid() {
        assertTrue(store.deleteOne(Filters.eq(RobotFields.SLOT, "slot-0")));
        assertEquals(3, robots.countDocuments());
        assertTrue(store.deleteOne(Filters.eq("_id", "d")));
        assertNull(robots.find(Filters.eq("_id", "d")).first());
        assertFalse(store.deleteOne(Filters.eq("_id", "d")), "nothing left to delete");
        assertEquals(2, robots.countDocuments());
    }

    @Test
    void countBySlotAndStateGroupsEveryRobotBySlotAndStoredState() {
        robots.updateOne(Filters.eq("_id", "a"), Updates.set(RobotFields.STATE, "RUNNING"));

        Set<Document> groups = Set.copyOf(store.countBySlotAndState());

        assertEquals(Set.of(
                new Document("_id", new Document("slot", "slot-0").append("state", "RUNNING")).append("n", 1),
                new Document("_id", new Document("slot", "slot-0").append("state", "PENDING")).append("n", 2),
                new Document("_id", new Document("slot", "slot-1").append("state", "PENDING")).append("n", 1)), groups);
    }
}
