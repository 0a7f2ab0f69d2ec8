package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.FaultyBackend;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A write the primary applied but could not confirm on a majority ({@code writeConcernError}) may be rolled back at the
 * next failover: it is not acknowledged. Only a replica set answers that way, so the embedded server here injects the
 * error into real replies.
 */
class WriteConcernFailureTest {

    private final FaultyBackend backend = new FaultyBackend();
    private TestMongo.Embedded server;
    private StandbyDatabase db;
    private RobotStore store;

    @BeforeEach
    void setUp() {
        server = TestMongo.startEmbedded(backend);
        db = StandbyDatabase.connect(server.uri(), "wc", Duration.ofSeconds(10), null);
        store = new MongoRobotStore(db);
        db.database()
                .getCollection(RobotFields.COLLECTION)
                .insertOne(RobotCodec.newRobot("r1", "counter", "slot-0", 0, 1, new Document()));
        store.fence("slot-0", 1, null);
    }

    @AfterEach
    void tearDown() {
        db.close();
        server.close();
    }

    private String incarnation() {
        return db.database()
                .getCollection(RobotFields.COLLECTION)
                .find()
                .first()
                .getString(RobotFields.INCARNATION);
    }

    @Test
    void aWriteAnsweredWithAWriteConcernErrorIsNotAcknowledgedAndItsRetryIs() throws Exception {
        try (WriteBatcher writes = new WriteBatcher(store)) {
            backend.failWriteConcern(RobotFields.COLLECTION, 1);
            RobotToken token = new RobotToken("r1", incarnation(), "slot-0", 1, 1);
            var failed = writes.submit(RobotWrite.checkpoint(token, 1, new Document("count", 1)));
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> failed.get(10, TimeUnit.SECONDS),
                    "a checkpoint without majority confirmation must not be reported acknowledged");
            assertFalse(
                    e.getCause() instanceof IllegalArgumentException,
                    "not refused for good: a retry may be acknowledged (" + e.getCause() + ")");

            assertTrue(
                    writes.submit(RobotWrite.checkpoint(token, 1, new Document("count", 1)))
                            .get(10, TimeUnit.SECONDS),
                    "the same write again, confirmed this time");

            backend.failWriteConcern(RobotFields.COLLECTION, 1);
            var status = writes.submit(RobotWrite.status(token, 2, new Document("state", "RUNNING")));
            assertThrows(ExecutionException.class, () -> status.get(10, TimeUnit.SECONDS), "a status write alike");
        }
        assertEquals(
                1,
                db.database()
                        .getCollection(RobotFields.COLLECTION)
                        .find()
                        .first()
                        .get("context", Document.class)
                        .getInteger("count"));
    }
}
