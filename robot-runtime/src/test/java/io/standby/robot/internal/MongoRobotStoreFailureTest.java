package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How the Mongo robot store reports a bulk of writes that did not simply land: the writes the database refused, by
 * their place in the bulk; an unreachable database as the driver's own (transient) error, which the batcher retries;
 * anything else as a write that cannot be sent.
 */
class MongoRobotStoreFailureTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private RobotStore store;
    private MongoCollection<Document> robots;

    @BeforeEach
    void setUp() {
        StandbyDatabase db = database.connection();
        store = new MongoRobotStore(db);
        robots = db.database().getCollection(RobotFields.COLLECTION);
        for (String id : List.of("r1", "r2", "r3")) {
            robots.insertOne(RobotCodec.newRobot(id, "counter", "slot-0", 0, 1, new Document()));
        }
        store.fence("slot-0", 1, null);
    }

    private RobotToken token(String id) {
        return RobotToken.of(store.load("slot-0", 1, List.of(id)).getFirst());
    }

    @Test
    void aWriteTheDatabaseRefusesIsReportedByItsPlaceInTheBulkAndTheOthersLand() {
        List<RobotWrite> bulk = List.of(
                RobotWrite.checkpoint(token("r1"), 1, new Document("count", 1)),
                // _id cannot change: the database refuses this one write.
                RobotWrite.status(token("r2"), 1, new Document("_id", "elsewhere")),
                RobotWrite.checkpoint(token("r3"), 1, new Document("count", 3)));

        RobotStore.BulkFailure failure = assertThrows(RobotStore.BulkFailure.class, () -> store.write(bulk));

        assertEquals(Set.of(1), failure.refused().keySet(), "only the second write is refused");
        assertFalse(failure.refused().get(1).isBlank(), "with the database's reason");
        assertFalse(failure.unconfirmed(), "the others were acknowledged");
        assertEquals(
                1,
                robots.find(Filters.eq("_id", "r1"))
                        .first()
                        .get("context", Document.class)
                        .getInteger("count"));
        assertEquals(
                3,
                robots.find(Filters.eq("_id", "r3"))
                        .first()
                        .get("context", Document.class)
                        .getInteger("count"));
        assertEquals(
                0L,
                robots.find(Filters.eq("_id", "r2")).first().getLong("statusSeq"),
                "the refused one changed nothing");
    }

    @Test
    void anUnreachableDatabaseIsReportedAsTheDriversOwnErrorSoTheWriteIsRetried() {
        int nobody = TestPorts.free();
        try (StandbyDatabase gone =
                StandbyDatabase.connect("mongodb://127.0.0.1:" + nobody, "gone", Duration.ofMillis(300), null)) {
            RobotStore unreachable = new MongoRobotStore(gone);
            RuntimeException e = assertThrows(
                    RuntimeException.class,
                    () -> unreachable.write(List.of(RobotWrite.checkpoint(token("r1"), 1, new Document("count", 1)))));
            assertFalse(e instanceof IllegalArgumentException, "not a write that cannot be sent: " + e);
            assertTrue(MongoRobotStore.isTransient(e), e.toString());
        }
    }

    /** The errors worth sending the same write again for: the database was unreachable, slow or electing. */
    @Test
    void unreachableSlowAndElectingAreTransientAndAnythingElseIsNot() {
        ServerAddress address = new ServerAddress("127.0.0.1", 1);
        List<RuntimeException> transients = List.of(
                new MongoSocketReadException("closed", address),
                new MongoTimeoutException("no server"),
                new MongoOperationTimeoutException("timeoutMS"),
                new MongoNotPrimaryException(new BsonDocument(), address),
                new MongoNodeIsRecoveringException(new BsonDocument(), address),
                new MongoInterruptedException("interrupted", null),
                labelled("RetryableWriteError"),
                labelled("TransientTransactionError"));
        for (RuntimeException e : transients) {
            assertTrue(
                    MongoRobotStore.isTransient(e),
                    e.getClass().getSimpleName() + " " + ((MongoException) e).getErrorLabels());
        }
        List<RuntimeException> others = List.of(
                new MongoException("bad"),
                labelled("NoWritesPerformed"),
                new MongoCommandException(new BsonDocument(), address),
                new IllegalStateException("closed"));
        for (RuntimeException e : others) {
            assertFalse(MongoRobotStore.isTransient(e), e.toString());
        }
    }

    private static MongoException labelled(String label) {
        MongoException e = new MongoException("labelled");
        e.addLabel(label);
        return e;
    }
}
