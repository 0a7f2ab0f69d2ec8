package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotView;
import io.standby.robot.runtime.RobotListener;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.MonotonicClock;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A robot's thread can start long after its launch (the process was paused, a collection ran): the context it was
 * launched with is the one its lease's take read, so if that lease ended meanwhile the robot must not run at all. The
 * simulation found it (seed 114 of a 50,000,000-step run): a node paused for 2.8 s between a launch and its thread's
 * start began the robot from a count below the one another node had since acknowledged.
 */
class RobotRunLateStartTest {

    private TestMongo.Embedded server;
    private StandbyDatabase db;
    private WriteBatcher writes;
    private final AtomicInteger ran = new AtomicInteger();

    @BeforeEach
    void setUp() {
        server = TestMongo.startEmbedded();
        db = StandbyDatabase.connect(server.uri(), "lateStart", Duration.ofSeconds(10), null);
    }

    @AfterEach
    void tearDown() {
        writes.close();
        db.close();
        server.close();
    }

    @Test
    void aRunWhoseLeaseEndedBeforeItsThreadStartedNeverRunsTheRobot() throws Exception {
        MongoRobotStore store = new MongoRobotStore(db);
        db.database()
                .getCollection(RobotFields.COLLECTION)
                .insertOne(RobotCodec.newRobot("r1", "late", "slot-0", 0, 1, new Document()));
        RobotView robot = RobotCodec.parse(
                db.database().getCollection(RobotFields.COLLECTION).find().first());
        writes = new WriteBatcher(store);
        RobotFactory factory = new RobotFactory() {
            @Override
            public String type() {
                return "late";
            }

            @Override
            public Robot create(Document config) {
                return context -> ran.incrementAndGet();
            }
        };
        RobotRuns runs = new RobotRuns(
                new RobotRuns.Storage(store, writes, new WriteSequence()),
                RuntimeConfig.defaults(Duration.ofSeconds(1)),
                RobotTypes.of(factory),
                "127.0.0.1:1",
                MonotonicClock.system(),
                new RobotRuns.Hooks(() -> {}, event -> {}, RobotListener.NONE));

        // A lease that ended between the take and the start of the robot's thread.
        Run run = runs.launch(robot, new FixedLease("slot-0", 0, false));

        assertTrue(run.await(Duration.ofSeconds(10)), "the run ends");
        assertEquals(0, ran.get(), "the robot ran without a lease, from a context that may be stale");
    }
}
