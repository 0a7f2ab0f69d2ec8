package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
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
 * A slot's start on the embedded server. A new lease fences and takes its robots in one write and starts them as it
 * loads them, with a number of commands that does not grow with theirs; a robot an operator changed before the load is
 * settled instead of started. A lease that resumes takes its robots again, in chunks: their documents are read once
 * when a take confirms every robot it asked for, and read again when it does not, so that a robot an operator stopped
 * between the load and the take is never started. A few seconds, most of it the tests of 1,003 robots.
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
    void aNewLeaseFencesAndTakesItsRobotsInOneWriteAndStartsThemWithoutATakeOrASecondRead() {
        robots.updateOne(Filters.eq("_id", "r1"), Updates.set("node", "10.0.0.9:7700"));

        slotRun().begin();

        assertEquals(1, store.loads, "only the load after the fence");
        assertEquals(List.of(), store.takes, "the fence took them");
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
            assertEquals(NODE, doc.getString("node"), "the former runner of r1 replaced");
            assertEquals(4L, ((Number) doc.get(RobotFields.EPOCH)).longValue());
            assertEquals(launched.get(id).incarnation(), doc.getString(RobotFields.INCARNATION));
            assertEquals(1L, ((Number) doc.get(RobotFields.FENCES)).longValue(), "one fence counted");
            assertEquals(
                    launched.get(id).fences(),
                    ((Number) doc.get(RobotFields.FENCES)).longValue(),
                    "the run's token is the document's");
        }
    }

    @Test
    void aNewLeaseStartsItsRobotsWithThreeCommandsWhateverTheirNumber() {
        insertMore(2 * SlotRun.TAKE_CHUNK);
        List<String> commands = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (StandbyDatabase counted = StandbyDatabase.connect(
                database.uri(),
                database.name(),
                Duration.ofSeconds(10),
                settings -> settings.addCommandListener(new CommandListener() {
                    @Override
                    public void commandStarted(CommandStartedEvent event) {
                        commands.add(event.getCommandName());
                    }
                }))) {
            store = new CountingStore(new MongoRobotStore(counted));

            slotRun().begin();
        }

        assertEquals(3 + 2 * SlotRun.TAKE_CHUNK, launched.size());
        assertEquals(
                List.of("update", "update", "find"),
                commands,
                "the fence and take of the runnable robots, the fence of the others, the load");
    }

    @Test
    void aBeginWhoseLoadFailedStartsWhatItsFenceTookWithoutATakeWhenItIsTriedAgain() {
        SlotRun run = slotRun();
        store.beforeLoad = () -> {
            throw new IllegalStateException("load: database unreachable");
        };
        assertThrows(IllegalStateException.class, run::begin);
        assertEquals(List.of(), List.copyOf(launched.keySet()));

        run.begin();

        assertEquals(
                List.of("r1", "r2", "r3"), launched.keySet().stream().sorted().toList());
        assertEquals(List.of(), store.takes, "the first attempt's fence took them, and no run held their token");
    }

    @Test
    void aRobotRemovedBetweenTheFenceAndTheLoadIsNotStarted() {
        // The operator's removal of a robot that a node runs, as RobotTable does it: its runner deletes it.
        store.beforeLoad = () -> robots.updateOne(Filters.eq("_id", "r3"), Updates.set("desired", "removed"));

        slotRun().begin();

        assertEquals(List.of("r1", "r2"), launched.keySet().stream().sorted().toList());
        assertEquals(0, robots.countDocuments(Filters.eq("_id", "r3")), "deleted under this lease's token");
    }

    @Test
    void aResumedLeaseTakesItsRobotsAgainAndARobotStoppedBeforeItsTakeIsNotStarted() {
        slotRun().begin();
        long fences = ((Number) robots.find(Filters.eq("_id", "r1")).first().get(RobotFields.FENCES)).longValue();
        launched.clear();
        store.loads = 0;
        // The operator's stop of a robot that a node runs, as RobotTable does it, lands after the load.
        store.beforeTake = ids -> robots.updateOne(Filters.eq("_id", "r3"), Updates.set("desired", "stopped"));

        slotRun().begin();

        assertEquals(2, store.loads, "a partial take reads the robots again");
        assertEquals(List.of("r1", "r2"), launched.keySet().stream().sorted().toList());
        assertEquals(
                fences + 1,
                launched.get("r1").fences(),
                "taken again: a run of the resumed lease has a token of its own");
    }

    /**
     * A robot moved to another slot between the load and its take: the take misses it, and the read after the partial
     * take no longer finds it in this slot. Only what the database shows taken starts, never a view from the load.
     */
    @Test
    void aResumedLeaseNeverStartsARobotMovedOutBeforeItsTake() {
        slotRun().begin();
        launched.clear();
        store.beforeTake = ids -> robots.updateOne(Filters.eq("_id", "r3"), Updates.set(RobotFields.SLOT, "slot-1"));

        slotRun().begin();

        assertEquals(List.of("r1", "r2"), launched.keySet().stream().sorted().toList());
    }

    @Test
    void aResumedLeaseTakesItsEarlierRunsRobotsAgainEvenWhenItsFenceTookAsManyAsItLoadsAtItsEpoch() {
        robots.deleteMany(Filters.in("_id", "r2", "r3"));
        slotRun().begin();
        long fences = ((Number) robots.find(Filters.eq("_id", "r1")).first().get(RobotFields.FENCES)).longValue();
        launched.clear();
        // A robot moved in from another slot below this epoch: the resumed run's combined write takes it, and it is
        // moved on before the load. The load then shows one robot of this node at this epoch, as many as the write
        // took, but it is r1, whose paused run may still send under the token it holds.
        robots.insertOne(RobotCodec.newRobot("r4", "counter", "slot-0", 0, 1, new Document()));
        store.beforeLoad = () -> robots.updateOne(Filters.eq("_id", "r4"), Updates.set(RobotFields.SLOT, "slot-1"));

        resumedSlotRun().begin();

        assertEquals(List.of("r1"), List.copyOf(launched.keySet()));
        assertEquals(fences + 1, launched.get("r1").fences(), "taken again: a token of its own, not its paused run's");
    }

    @Test
    void aResumedLeaseTakesManyRobotsInBoundedChunksAndOnlyAPartialChunkIsReadAgain() {
        insertMore(2 * SlotRun.TAKE_CHUNK);
        int robotCount = 3 + 2 * SlotRun.TAKE_CHUNK;
        slotRun().begin();
        launched.clear();
        store.loads = 0;
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

    private void insertMore(int count) {
        List<Document> more = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            more.add(RobotCodec.newRobot(String.format("m%05d", i), "counter", "slot-0", 0, 1, new Document()));
        }
        robots.insertMany(more);
    }

    private SlotRun slotRun() {
        return new SlotRun(FixedLease.valid(), core());
    }

    /** A run of the same lease after a pause: its earlier run's robots hold tokens at this epoch. */
    private SlotRun resumedSlotRun() {
        return SlotRun.resumed(FixedLease.valid(), core());
    }

    private RuntimeCore core() {
        return new RuntimeCore(store, null, new WriteSequence(), NODE, new Launcher(), MonotonicClock.system());
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
        /** Runs once, just before the first load. */
        Runnable beforeLoad = () -> {};

        CountingStore(RobotStore store) {
            super(store);
        }

        @Override
        public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
            loads++;
            Runnable hook = beforeLoad;
            beforeLoad = () -> {};
            hook.run();
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
