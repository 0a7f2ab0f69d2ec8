package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RobotDocuments} on MongoDB: the plain reads and writes behind the operator's commands ({@code RobotTable}), on
 * an embedded server. The store contract ({@link RobotStoreContract}) covers the runtime's own operations.
 */
class MongoRobotDocumentsTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private RobotDocuments store;
    private MongoCollection<Document> robots;

    @BeforeEach
    void setUp() {
        StandbyDatabase db = database.connection();
        store = new MongoRobotStore(db);
        robots = db.database().getCollection(RobotFields.COLLECTION);
        for (String id : List.of("c", "a", "d", "b")) {
            assertTrue(store.insert(RobotCodec.newRobot(
                    id, "counter", id.equals("d") ? "slot-1" : "slot-0", 0, 1, new Document("k", id))));
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

        Document summary = store.find(Filters.eq("_id", "a"), List.of(RobotFields.CONFIG, RobotFields.CONTEXT), 0)
                .getFirst();
        assertFalse(summary.containsKey(RobotFields.CONFIG));
        assertFalse(summary.containsKey(RobotFields.CONTEXT));
        Set<String> expected = whole.keySet().stream()
                .filter(k -> !k.equals(RobotFields.CONFIG) && !k.equals(RobotFields.CONTEXT))
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
    void updateSendsOneChangeOfOneRobotAndCountsItsMatchEvenWhereNothingChanged() {
        RobotView a = RobotCodec.parse(robots.find(Filters.eq("_id", "a")).first());

        assertEquals(1, store.update(RobotRules.stopIdle(a)));
        assertEquals(1, robots.countDocuments(Filters.eq(RobotFields.STATE, "STOPPED")), "one document changed");
        assertEquals(1, store.update(RobotRules.stopIdle(a)), "matched, though already stopped");
        assertEquals(0, store.update(RobotRules.requestMove(a, "slot-1")), "nobody runs it: no runner to ask");
        assertNull(robots.find(Filters.eq("_id", "a")).first().get(RobotFields.TARGET));
    }

    @Test
    void revokeRaisesTheEpochOfEveryRobotOfTheSlotBelowIt() {
        robots.updateOne(Filters.eq("_id", "c"), Updates.set(RobotFields.EPOCH, 7L));

        assertEquals(2, store.revoke("slot-0", 3), "a and b; c is above");
        assertEquals(3L, robots.find(Filters.eq("_id", "a")).first().getLong(RobotFields.EPOCH));
        assertEquals(7L, robots.find(Filters.eq("_id", "c")).first().getLong(RobotFields.EPOCH));
        assertEquals(
                0L, robots.find(Filters.eq("_id", "d")).first().getLong(RobotFields.EPOCH), "another slot's robot");
        assertEquals(0, store.revoke("slot-0", 3), "once");
    }

    @Test
    void deleteIdleDeletesThisIncarnationOnlyWhileNobodyRunsIt() {
        RobotView d = RobotCodec.parse(robots.find(Filters.eq("_id", "d")).first());
        robots.updateOne(Filters.eq("_id", "d"), Updates.set(RobotFields.NODE, "127.0.0.1:1"));

        assertFalse(store.deleteIdle(d), "a node runs it");
        robots.updateOne(Filters.eq("_id", "d"), Updates.set(RobotFields.NODE, null));
        assertTrue(store.deleteIdle(d));
        assertNull(robots.find(Filters.eq("_id", "d")).first());
        assertFalse(store.deleteIdle(d), "nothing left to delete");
        assertEquals(3, robots.countDocuments());
    }

    @Test
    void countBySlotAndStateGroupsEveryRobotBySlotAndStoredState() {
        robots.updateOne(Filters.eq("_id", "a"), Updates.set(RobotFields.STATE, "RUNNING"));

        Set<Document> groups = Set.copyOf(store.countBySlotAndState());

        assertEquals(
                Set.of(
                        new Document("_id", new Document("slot", "slot-0").append("state", "RUNNING")).append("n", 1),
                        new Document("_id", new Document("slot", "slot-0").append("state", "PENDING")).append("n", 2),
                        new Document("_id", new Document("slot", "slot-1").append("state", "PENDING")).append("n", 1)),
                groups);
    }
}
