package io.standby.robot.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.internal.RobotChangeWatcher.Status;
import io.standby.robot.model.RobotFields;
import io.standby.slot.MonotonicClock;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The production watcher on a real change stream. Needs a replica set ({@code STANDBY_TEST_MONGO_URI} naming one, or
 * Docker), which the server is asked for; reported as skipped, with that reason, where there is none (the embedded
 * server has no change streams; {@link RobotChangesTest} runs the same filter there, and
 * {@link RobotChangeWatcherEmbeddedTest} the watcher's fallback). On a replica set the watcher must open its stream.
 * Events arrive in the order they were written, so once the last expected one has arrived, any unwanted one written
 * before it would have arrived too.
 */
class RobotChangeWatcherReplicaSetTest {

    @Test
    @EnabledIf(
            value = "io.standby.testing.TestMongo#replicaSet",
            disabledReason = "needs a replica set: set STANDBY_TEST_MONGO_URI to one, or run where Docker answers")
    void onlyOperatorCommandsAndRobotsMovingInArriveNotRunnerWrites() {
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicInteger wakes = new AtomicInteger();
        try (StandbyDatabase database = StandbyDatabase.connect(
                        TestMongo.uri(), TestMongo.freshDatabase("robot_watch_rs"), Duration.ofSeconds(5), null);
                RobotChangeWatcher watcher = new RobotChangeWatcher(
                        recording(new MongoRobotChangeSource(database.client(), database.database()), seen),
                        Duration.ofSeconds(1),
                        wakes::incrementAndGet,
                        MonotonicClock.system(),
                        Thread::sleep)) {
            watcher.slots(Set.of("slot-0"));
            watcher.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> watcher.status() == Status.WATCHING || watcher.status() == Status.UNAVAILABLE);
            assertEquals(Status.WATCHING, watcher.status(), "a replica set offers change streams");
            MongoCollection<Document> robots = database.database().getCollection(RobotFields.COLLECTION);

            robots.insertOne(robot("r1", "slot-0"));
            robots.insertOne(robot("r2", "slot-9"));
            update(
                    robots,
                    "r1",
                    Updates.combine(
                            Updates.set(RobotFields.CONTEXT, new Document("count", 1L)),
                            Updates.set("seq", 1L),
                            Updates.currentDate(RobotFields.UPDATED)));
            update(
                    robots,
                    "r1",
                    Updates.combine(
                            Updates.set(RobotFields.STATE, "RUNNING"),
                            Updates.set("statusSeq", 1L),
                            Updates.set(RobotFields.NODE, "10.0.0.5:7700")));
            update(
                    robots,
                    "r2",
                    Updates.combine(
                            Updates.set(RobotFields.SLOT, "slot-0"),
                            Updates.set(RobotFields.EPOCH, 0L),
                            Updates.set(RobotFields.STATE, "PENDING"),
                            Updates.set(RobotFields.NODE, null)));
            update(robots, "r1", Updates.combine(Updates.set(RobotFields.DESIRED, "stopped"), request("slot-0")));
            // A second command replaces an existing request whose slot is the same: still the whole subdocument.
            update(robots, "r1", Updates.combine(Updates.set(RobotFields.DESIRED, "running"), request("slot-0")));
            robots.deleteOne(Filters.eq("_id", "r2"));
            robots.insertOne(robot("r3", "slot-0"));

            List<String> expected = List.of("insert r1", "update r2", "update r1", "update r1", "insert r3");
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() >= expected.size());
            assertEquals(expected, seen);

            // Written once the stream for the new set is open (its open wakes once): the old stream, still
            // reading when the set changed, would have read past it and dropped it.
            int woken = wakes.get();
            watcher.slots(Set.of("slot-0", "slot-9"));
            await().atMost(Duration.ofSeconds(30)).until(() -> wakes.get() > woken);
            robots.insertOne(robot("r4", "slot-9"));
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() > expected.size());
            assertEquals("insert r4", seen.get(expected.size()));
        }
    }

    private static void update(MongoCollection<Document> robots, String id, Bson update) {
        robots.updateOne(Filters.eq("_id", id), update);
    }

    private static Bson request(String slotId) {
        return Updates.set(RobotFields.REQUEST, new Document("slot", slotId).append("at", new Date()));
    }

    private static Document robot(String id, String slotId) {
        return new Document("_id", id)
                .append("type", "counter")
                .append(RobotFields.SLOT, slotId)
                .append(RobotFields.DESIRED, "running")
                .append(RobotFields.STATE, "PENDING")
                .append(RobotFields.NODE, null)
                .append(RobotFields.CONTEXT, new Document())
                .append(RobotFields.EPOCH, 0L)
                .append(RobotFields.REQUEST, new Document("slot", slotId).append("at", new Date()));
    }

    /** The source, noting each event it delivers as "operationType robotId". */
    private static RobotChangeSource recording(RobotChangeSource source, List<String> seen) {
        return new RobotChangeSource() {
            @Override
            public boolean offersChangeStreams() {
                return source.offersChangeStreams();
            }

            @Override
            public Stream open(List<Bson> pipeline, BsonDocument resumeAfter) {
                Stream stream = source.open(pipeline, resumeAfter);
                return new Stream() {
                    @Override
                    public BsonDocument tryNext() {
                        BsonDocument event = stream.tryNext();
                        if (event != null) {
                            seen.add(event.getString("operationType").getValue() + " "
                                    + event.getDocument("documentKey")
                                            .getString("_id")
                                            .getValue());
                        }
                        return event;
                    }

                    @Override
                    public BsonDocument resumeToken() {
                        return stream.resumeToken();
                    }

                    @Override
                    public void close() {
                        stream.close();
                    }
                };
            }
        };
    }
}
