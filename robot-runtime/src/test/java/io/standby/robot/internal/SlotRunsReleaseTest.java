package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A graceful release frees the slot for a standby at once, so it must not leave a robot of the slot running on this
 * node, including one that an earlier pause at the late mark interrupted and that is still unwinding (the simulation
 * found it: seed 2, step 93513, a release right after a pause and a resume).
 */
class SlotRunsReleaseTest {

    private static TestMongo.Embedded server;
    private StandbyDatabase db;
    private final List<String> order = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        server = TestMongo.startEmbedded();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void tearDown() {
        db.database().drop();
        db.close();
    }

    @Test
    void aReleaseWaitsForTheRobotsThatAPauseInterruptedAndThatStillUnwind() throws Exception {
        db = StandbyDatabase.connect(
                server.uri(), TestMongo.freshDatabase("releaseAfterPause"), Duration.ofSeconds(10), null);
        MongoRobotStore store = new MongoRobotStore(db);
        db.database()
                .getCollection(RobotFields.COLLECTION)
                .insertOne(RobotCodec.newRobot("r1", "counter", "slot-0", 0, 1, new Document("intervalMs", 5)));
        Launcher launcher = new Launcher();
        SlotRuns slots = new SlotRuns(
                new RuntimeCore(store, null, new WriteSequence(), "127.0.0.1:1", launcher, MonotonicClock.system()),
                Duration.ofSeconds(5),
                SlotRuns.RESYNC,
                ids -> {},
                () -> {});
        Lease lease = FixedLease.valid();
        slots.acquired(lease);
        slots.sync();
        assertEquals(1, launcher.runs.size(), "r1 runs");
        UnwindingRun paused = launcher.runs.getFirst();

        slots.paused(lease);
        assertTrue(paused.interrupted, "the pause interrupts the robot");
        slots.resumed(lease);
        slots.sync();
        assertEquals(1, launcher.runs.size(), "r1 waits for its paused run before it runs again");

        CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
            slots.release(lease);
            order.add("released");
        });
        // The paused run is still unwinding: the slot must not be freed yet.
        assertFalse(paused.ended.await(300, TimeUnit.MILLISECONDS));
        assertFalse(release.isDone(), "released while the paused robot still ran");
        order.add("robot ended");
        paused.ended.countDown();
        release.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("robot ended", "released"), order);
    }

    private final class Launcher implements Run.Launcher {
        final List<UnwindingRun> runs = new CopyOnWriteArrayList<>();

        @Override
        public Run launch(RobotView robot, Lease lease) {
            UnwindingRun run = new UnwindingRun(RobotToken.of(robot));
            runs.add(run);
            return run;
        }

        @Override
        public boolean aliveOnNode(String robotId) {
            return runs.stream().anyMatch(r -> r.token().robotId().equals(robotId) && r.isAlive());
        }
    }

    /** A run whose robot, once interrupted, takes until the test says so to return. */
    private static final class UnwindingRun implements Run {
        private final RobotToken token;
        final CountDownLatch ended = new CountDownLatch(1);
        volatile boolean interrupted;

        UnwindingRun(RobotToken token) {
            this.token = token;
        }

        @Override
        public RobotToken token() {
            return token;
        }

        @Override
        public boolean isAlive() {
            return ended.getCount() > 0;
        }

        @Override
        public void requestStop(Stop why, String target) {}

        @Override
        public void interrupt() {
            interrupted = true;
        }

        @Override
        public void interruptRemoved() {
            interrupt();
        }

        @Override
        public void resendStatus() {}

        @Override
        public boolean await(Duration atMost) throws InterruptedException {
            return ended.await(atMost.toNanos(), TimeUnit.NANOSECONDS);
        }
    }
}
