package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A slot's start on the embedded server: the robots' documents are read once when the take confirms every robot asked
 * for, and read again when it does not, so that a robot an operator stopped between the load and the take is never
 * started; a large slot is taken in chunks. About 2 s, most of it the last test's 1,003 robots.
 */
class SlotRunTakeTest {

    private static final String NODE = "127.0.0.1:1";

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private StandbyDatabase db;
    private MongoCollection<Document> robots;
    private CountingStore store;
    private final Map<String, RobotView> launched = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp() {
        db = database.connection();
        store = new CountingStore(new MongoRobotStore(db));
        robots = db.database().getCollection(RobotFields.COLLECTION);
        for (String id : List.of("r1", "r2", "r3")) {
            robots.insertOne(RobotCodec.newRobot(id, "counter", "slot-0", 0, 1, new Document("intervalMs", 5)));
        }
        robots.updateOne(Filters.eq("_id", "r2"), Updates.set(RobotFields.CONTEXT, new Document("count", 41)));
    }

    @Test
    void aTakeOfEveryRobotStartsThemWithoutReadingThemAgain() {
        slotRun().begin();

        assertEquals(1, store.loads, "only the load after the fence");
        assertEquals(
                List.of("r1", "r2", "r3"), launched.keySet().stream().sorted().toList());
        RobotView r2 = launched.get("r2");
        assertEquals(RobotState.STARTING, r2.state());
        assertEquals(NODE, r2.node());
        assertEquals(4, r2.epoch());
        assertEquals(41, r2.context().getInteger("count"), "the loaded context travels to the run");
        assertEquals(5, r2.config().getInteger("intervalMs"));
        for (String id : List.of("r1", "r2", "r3")) {
            Document doc = robots.find(Filters.eq("_id", id)).first();
            assertEquals(NODE, doc.getString("node"));
            assertEquals(RobotState.STARTING.name(), doc.getString("state"));
            assertEquals(launched.get(id).incarnation(), doc.getString(RobotFields.INCARNATION));
            assertEquals(
                    launched.get(id).fences(),
                    ((Number) doc.get(RobotFields.FENCES)).longValue(),
                    "the run's token is the document's");
        }
    }

    @Test
    void aRobotStoppedBetweenTheLoadAndTheTakeIsNotStarted() {
        // The operator's stop of a robot nobody runs, as RobotTable does it, lands after the load.
        store.beforeTake = ids -> robots.updateOne(
                Filters.and(Filters.eq("_id", "r3"), Filters.eq("node", null)),
                Updates.combine(Updates.set("desired", "stopped"), Updates.set("state", "STOPPED")));

        slotRun().begin();

        assertEquals(2, store.loads, "a partial take reads the robots again");
        assertEquals(List.of("r1", "r2"), launched.keySet().stream().sorted().toList());
        assertEquals("STOPPED", robots.find(Filters.eq("_id", "r3")).first().getString("state"));
    }

    @Test
    void manyRobotsAreTakenInBoundedChunksAndOnlyAPartialChunkIsReadAgain() {
        List<Document> more = new ArrayList<>();
        for (int i = 0; i < 2 * SlotRun.TAKE_CHUNK; i++) {
            more.add(RobotCodec.newRobot(String.format("m%05d", i), "counter", "slot-0", 0, 1, new Document()));
        }
        robots.insertMany(more);
        int robotCount = 3 + more.size();
        store.beforeTake = ids -> {
            if (ids.contains("m00700")) {
                robots.updateOne(Filters.eq("_id", "m00700"), Updates.set("desired", "stopped"));
            }
        };

        slotRun().begin();

        assertEquals(robotCount - 1, launched.size(), "every robot but the one stopped before its take");
        assertEquals(false, launched.containsKey("m00700"));
        assertEquals(3, store.takes.size(), "three takes of at most " + SlotRun.TAKE_CHUNK);
        store.takes.forEach(take -> assertEquals(true, take <= SlotRun.TAKE_CHUNK));
        assertEquals(2, store.loads, "the load, and the chunk whose take fell short read again");
        assertEquals(robotCount - 1, robots.countDocuments(Filters.eq("state", "STARTING")));
    }

    private SlotRun slotRun() {
        RuntimeCore core =
                new RuntimeCore(store, null, new WriteSequence(), NODE, new Launcher(), MonotonicClock.system());
        return new SlotRun(FixedLease.valid(), core);
    }

    private final class Launcher implements Run.Launcher {
        @Override
        public Run launch(RobotView robot, Lease lease) {
            launched.put(robot.id(), robot);
            return new IdleRun(RobotToken.of(robot));
        }

        @Override
        public boolean aliveOnNode(String robotId) {
            return false;
        }
    }

    /** A run that never ends: only its start matters here. */
    private record IdleRun(RobotToken token) implements Run {
        @Override
        public boolean isAlive() {
            return true;
        }

        @Override
        public void requestStop(Stop why, String target) {}

        @Override
        public void interrupt() {}

        @Override
        public void interruptRemoved() {}

        @Override
        public void resendStatus() {}

        @Override
        public boolean await(Duration atMost) {
            return true;
        }
    }

    /** The real store, counting its loads and letting a test act just before a take. */
    private static final class CountingStore extends ForwardingRobotStore {
        int loads;
        final List<Integer> takes = new ArrayList<>();
        Consumer<Collection<String>> beforeTake = ids -> {};

        CountingStore(RobotStore store) {
            super(store);
        }

        @Override
        public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
            loads++;
            return store.load(slotId, epoch, onlyIds);
        }

        @Override
        public long take(String slotId, long epoch, Collection<String> ids, String node) {
            takes.add(ids.size());
            beforeTake.accept(ids);
            return store.take(slotId, epoch, ids, node);
        }

        @Override
        public Map<String, Stored> stored(Collection<String> ids) {
            return new java.util.HashMap<>(store.stored(ids));
        }
    }
}
