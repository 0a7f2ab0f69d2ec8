package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.testing.TestMongo;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The change-stream filter, evaluated by a real server. No replica set runs here, so the events are stored as ordinary
 * documents shaped exactly like change events, and the pipeline runs over them as an aggregation: the same
 * {@code $match} a change stream would apply to each event.
 */
class RobotChangesTest {

    private static final Set<String> MINE = Set.of("slot-0", "slot-1");

    private static TestMongo.Embedded server;
    private static MongoClient client;
    private MongoCollection<Document> events;

    @BeforeAll
    static void start() {
        server = TestMongo.startEmbedded();
        client = MongoClients.create(server.uri());
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    @BeforeEach
    void freshCollection() {
        events = client.getDatabase(TestMongo.freshDatabase("robot_changes")).getCollection("events");
    }

    @Test
    void anOperatorCommandOrARobotAddedOrMovedIntoMySlotsWakesMe() {
        store(insert("added", robot("r1", "slot-0")));
        store(replace("replaced", robot("r2", "slot-1")));
        store(update(
                "moved-in",
                new Document(RobotFields.SLOT, "slot-1")
                        .append(RobotFields.EPOCH, 0L)
                        .append(RobotFields.STATE, "PENDING")
                        .append(RobotFields.NODE, null)));
        store(update(
                "stopped",
                new Document(RobotFields.DESIRED, "stopped").append(RobotFields.REQUEST, request("slot-0"))));
        store(update(
                "move-requested",
                new Document(RobotFields.TARGET, "slot-7").append(RobotFields.REQUEST, request("slot-1"))));

        assertEquals(List.of("added", "replaced", "moved-in", "stopped", "move-requested"), passing());
    }

    @Test
    void runnerWritesWakeNobody() {
        store(update(
                "checkpoint",
                new Document(RobotFields.CONTEXT, new Document("count", 12L))
                        .append("seq", 13L)
                        .append(RobotFields.UPDATED, new Date())));
        store(update(
                "status",
                new Document(RobotFields.STATE, "RUNNING")
                        .append("statusSeq", 4L)
                        .append(RobotFields.NODE, "10.0.0.5:7700")
                        .append(RobotFields.RESTARTS, 1)
                        .append(RobotFields.LAST_ERROR, "boom")
                        .append(RobotFields.EPOCH, 3L)));
        // A context that happens to hold a field named like the ones watched changes nothing.
        store(update(
                "context-lookalike",
                new Document(
                        RobotFields.CONTEXT,
                        new Document(RobotFields.SLOT, "slot-0").append("request", new Document("slot", "slot-0")))));

        assertEquals(List.of(), passing());
    }

    @Test
    void changesElsewhereWakeNobody() {
        store(insert("added-elsewhere", robot("r3", "slot-9")));
        store(replace("replaced-elsewhere", robot("r4", "slot-9")));
        store(update("moved-elsewhere", new Document(RobotFields.SLOT, "slot-9").append(RobotFields.EPOCH, 0L)));
        store(update("commanded-elsewhere", new Document(RobotFields.REQUEST, request("slot-9"))));
        // A move into my slot is requested on the slot it leaves; I hear of it when it is handed over.
        store(update(
                "move-to-me-requested",
                new Document(RobotFields.TARGET, "slot-0").append(RobotFields.REQUEST, request("slot-9"))));

        assertEquals(List.of(), passing());
    }

    @Test
    void deletesAndOtherEventsWakeNobody() {
        store(event("deleted", "delete"));
        store(event("dropped", "drop"));
        store(event("invalidated", "invalidate"));
        store(insert("added-without-slot", new Document("_id", "r5")));
        // An update event never carries the document (no updateLookup); one that did must not pass either.
        store(update("update-with-full-document", new Document(RobotFields.CONTEXT, new Document()))
                .append("fullDocument", robot("r6", "slot-0")));
        // Only an insert or a replace counts its document's slot.
        store(event("delete-with-slot", "delete").append("fullDocument", robot("r7", "slot-0")));

        assertEquals(List.of(), passing());
    }

    @Test
    void theProjectionKeepsOnlyTheResumeTokenTypeAndKey() {
        store(insert("added", robot("r1", "slot-0")));

        Document shipped = events.aggregate(RobotChanges.pipeline(MINE)).first();

        assertEquals(
                new Document("_id", new Document("_data", "added"))
                        .append("operationType", "insert")
                        .append("documentKey", new Document("_id", "r1")),
                shipped);
    }

    @Test
    void theSameSetGivesTheSamePipelineAndNoSetIsRefused() {
        assertEquals(
                RobotChanges.match(Set.of("slot-0", "slot-1", "slot-2")).toBsonDocument(),
                RobotChanges.match(Set.of("slot-2", "slot-1", "slot-0")).toBsonDocument());
        assertThrows(IllegalArgumentException.class, () -> RobotChanges.match(Set.of()));
    }

    private List<String> passing() {
        List<String> names = new ArrayList<>();
        for (Document event : events.aggregate(List.of(RobotChanges.match(MINE)))) {
            names.add(event.get("_id", Document.class).getString("_data"));
        }
        return names;
    }

    private void store(Document event) {
        events.insertOne(event);
    }

    private static Document robot(String id, String slotId) {
        return new Document("_id", id)
                .append("incarnation", id + "-1")
                .append("type", "counter")
                .append(RobotFields.SLOT, slotId)
                .append(RobotFields.DESIRED, "running")
                .append(RobotFields.STATE, "PENDING")
                .append(RobotFields.NODE, null)
                .append(RobotFields.CONTEXT, new Document())
                .append(RobotFields.EPOCH, 0L)
                .append(RobotFields.REQUEST, request(slotId));
    }

    /** Exactly what an operator's change writes. */
    private static Document request(String slotId) {
        return RobotCodec.request(slotId);
    }

    /** The fields every change event has; {@code name} stands in for the resume token. */
    private static Document event(String name, String operationType) {
        return new Document("_id", new Document("_data", name))
                .append("operationType", operationType)
                .append("clusterTime", new BsonTimestamp(1_800_000_000, 1))
                .append("wallTime", new Date())
                .append("ns", new Document("db", "standby").append("coll", RobotFields.COLLECTION))
                .append("documentKey", new Document("_id", "r1"));
    }

    private static Document insert(String name, Document robot) {
        return event(name, "insert")
                .append("documentKey", new Document("_id", robot.get("_id")))
                .append("fullDocument", robot);
    }

    private static Document replace(String name, Document robot) {
        return insert(name, robot).append("operationType", "replace");
    }

    private static Document update(String name, Document updatedFields) {
        return event(name, "update")
                .append(
                        "updateDescription",
                        new Document("updatedFields", updatedFields)
                                .append("removedFields", List.of())
                                .append("truncatedArrays", List.of()));
    }
}
