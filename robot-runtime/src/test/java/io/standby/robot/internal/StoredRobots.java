package io.standby.robot.internal;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import org.bson.Document;

/**
 * Robots in the embedded server's {@code robots} collection, as a slot's owner leaves them for a run: fenced at epoch 4
 * of {@code slot-0} and taken by this node. The run tests read back what landed.
 */
final class StoredRobots implements AutoCloseable {

    static final String SLOT = "slot-0";
    static final long EPOCH = 4;
    static final String NODE = "127.0.0.1:1";

    final TestMongo.Embedded server;
    final StandbyDatabase db;
    final MongoRobotStore store;

    StoredRobots() {
        this(new MemoryBackend());
    }

    StoredRobots(MemoryBackend backend) {
        server = TestMongo.startEmbedded(backend);
        db = StandbyDatabase.connect(server.uri(), "runs", Duration.ofSeconds(10), null);
        store = new MongoRobotStore(db);
    }

    /** A new robot of this type, fenced and taken at epoch 4, as its run is launched with it. */
    RobotView add(String id, String type, Document config) {
        db.database()
                .getCollection(RobotFields.COLLECTION)
                .insertOne(RobotCodec.newRobot(id, type, SLOT, 0, 1, config));
        store.fence(SLOT, EPOCH, List.of(id));
        if (store.take(SLOT, EPOCH, List.of(id), NODE) != 1) {
            throw new IllegalStateException("robot " + id + " not taken");
        }
        return store.load(SLOT, EPOCH, List.of(id)).getFirst();
    }

    /** The robot's token, as a run launched now would carry it. */
    RobotToken token(String id) {
        return RobotToken.of(store.load(SLOT, EPOCH, List.of(id)).getFirst());
    }

    /** Another owner's fence (a new epoch): every write under the earlier token is rejected from now on. */
    void fenceAway(long epoch) {
        store.fence(SLOT, epoch, null);
    }

    /** The stored document, or null if there is none. */
    Document doc(String id) {
        return db.database()
                .getCollection(RobotFields.COLLECTION)
                .find(new Document(RobotFields.ID, id))
                .first();
    }

    @Override
    public void close() {
        db.close();
        server.close();
    }
}
