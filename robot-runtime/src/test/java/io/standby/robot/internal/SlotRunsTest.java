package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.slot.Lease;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.Workload;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The slots whose robots a node runs, driven step by step as the slot listener and the sync loop drive them, on the
 * embedded server with recording runs: which lease's calls count, when a slot's robots are read again (a change mark, a
 * change stream event, the resync), what a loss or a pause leaves behind, and that a failed sync is tried again. About
 * a second.
 */
class SlotRunsTest {

    private static final String NODE = "127.0.0.1:1";
    private static final Duration RESYNC = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private MongoCollection<Document> robots;
    private HookedStore store;
    private final RecordingRuns runs = new RecordingRuns();
    /** What the change-stream watcher was told, in order. */
    private final List<Set<String>> held = new CopyOnWriteArrayList<>();

    private final AtomicInteger wakes = new AtomicInteger();
    private SlotRuns slots;

    @BeforeEach
    void setUp() {
        StandbyDatabase db = database.connection();
        store = new HookedStore(new MongoRobotStore(db));
        robots = db.database().getCollection(RobotFields.COLLECTION);
        slots = new SlotRuns(
                new RuntimeCore(
                        store,
                        write -> {
                            throw new AssertionError("no writes expected: " + write);
                        },
                        new WriteSequence(),
                        NODE,
                        runs,
                        runs.clock),
                Duration.ofSeconds(5),
                RESYNC,
                held::add,
                wakes::incrementAndGet);
        for (String id : List.of("a1", "a2")) {
            robots.insertOne(RobotCodec.newRobot(id, "counter", "slot-0", 0, 1, new Document()));
        }
        robots.insertOne(RobotCodec.newRobot("b1", "counter", "slot-1", 0, 1, new Document()));
    }

    private static SlotView view(Lease lease, long changes) {
        return SlotView.of(
                        lease.slotId(),
                        null,
                        "i1",
                        Instant.parse("2026-11-26T10:00:00Z"),
                        Duration.ofSeconds(5),
                        lease.epoch(),
                        Duration.ZERO)
                .withChanges(changes);
    }

    /** The slots won and begun, with the first sync's full read done and what it asked of the runs forgotten. */
    private void won(Lease... leases) {
        for (Lease lease : leases) {
            slots.acquired(lease);
        }
        slots.sync();
        runs.launched.forEach(r -> r.asked.clear());
    }

    private void stopByOperator(String id) {
        robots.updateOne(Filters.eq("_id", id), Updates.set("desired", "stopped"));
    }

    // --- which lease's calls count ---

    @Test
    void aWonSlotIsBegunAtTheNextSyncAndTheWatcherIsToldTheSlotsHeld() {
        FixedLease lease0 = FixedLease.valid();
        slots.acquired(lease0);
        assertEquals(List.of(), runs.launchedIds(), "begun on the sync thread, not the protocol's");
        assertEquals(1, wakes.get(), "a sync is asked for at once");
        slots.acquired(new FixedLease("slot-1", 2, true));

        slots.sync();

        assertEquals(
                List.of("a1", "a2", "b1"), runs.launchedIds().stream().sorted().toList());
        assertEquals(List.of(Set.of("slot-0"), Set.of("slot-0", "slot-1")), held);
        assertEquals(Map.of("slot-0", List.of("a1", "a2"), "slot-1", List.of("b1")), slots.running());
        assertEquals(new Workload(3, 0, List.of()), slots.workload());
    }

    @Test
    void aSlotLostBeforeItsSyncIsNeverBegun() {
        FixedLease lease = FixedLease.valid();
        slots.acquired(lease);
        slots.lost(lease);

        slots.sync();

        assertEquals(List.of(), runs.launchedIds());
        assertEquals(List.of(Set.of("slot-0"), Set.of()), held, "the watcher no longer watches a lost slot");
        assertEquals(Map.of(), slots.running());
    }

    @Test
    void aLossOrReleaseOfAnEarlierLeaseLeavesTheCurrentOneAlone() {
        FixedLease earlier = new FixedLease("slot-0", 3, false);
        FixedLease current = FixedLease.valid();
        won(current);

        slots.lost(earlier);
        slots.release(earlier);
        slots.observed(earlier, view(earlier, 9));
        FixedLease unheld = new FixedLease("slot-7", 4, true);
        slots.observed(unheld, view(unheld, 9));
        slots.lost(unheld);
        slots.release(unheld);
        slots.sync();

        assertEquals(
                List.of("resend"),
                runs.run("a1").asked,
                "the robots of epoch 4 are not stopped by news of epoch 3, nor read");
        assertEquals(Map.of("slot-0", List.of("a1", "a2")), slots.running());
        assertEquals(List.of(Set.of("slot-0")), held);
    }

    @Test
    void aLostSlotInterruptsItsRobotsAndIsNoLongerHeld() {
        FixedLease lease = FixedLease.valid();
        won(lease);

        slots.lost(lease);

        assertEquals(List.of("interrupt"), runs.run("a1").asked);
        assertEquals(List.of("interrupt"), runs.run("a2").asked);
        assertEquals(Map.of(), slots.running());
        assertEquals(new Workload(0, 0, List.of()), slots.workload());
        assertEquals(Set.of(), held.getLast());
    }

    @Test
    void aPausedSlotStopsItsRobotsAtOnceAndAResumeStartsThemAgainOnceThePausedRunsEnded() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        runs.run("a1").ignoresInterrupt = true;

        slots.paused(lease);
        assertEquals(List.of("interrupt"), runs.run("a1").asked);
        assertEquals(List.of("interrupt"), runs.run("a2").asked);
        slots.resumed(lease);
        slots.sync();
        assertEquals(
                List.of("a1", "a2", "a2"),
                runs.launchedIds().stream().sorted().toList(),
                "a2 again at once; a1 waits for its paused run");

        runs.launched.stream().filter(r -> r.token().robotId().equals("a1")).forEach(r -> r.alive = false);
        slots.changed();
        slots.sync();
        assertEquals(
                List.of("a1", "a1", "a2", "a2"),
                runs.launchedIds().stream().sorted().toList());
    }

    @Test
    void aReleaseStopsTheCurrentRunsAndWaitsForEveryLostRunStillUnwinding() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        runs.launched.forEach(r -> r.ignoresInterrupt = true);
        slots.lost(lease);
        slots.acquired(lease);
        slots.sync();
        slots.lost(lease);
        slots.acquired(lease);
        slots.sync();
        assertEquals(2, runs.launched.size(), "a1 and a2 wait for their lost runs");

        long releasing = runs.clock.nanoTime();
        slots.release(lease);

        assertTrue(
                runs.launched.stream().allMatch(r -> !r.awaits.isEmpty()),
                "every lost run still unwinding was awaited");
        assertEquals(
                releasing + RobotRun.FINAL_WRITE.toNanos(),
                runs.clock.nanoTime(),
                "within their grace, then left behind");
    }

    @Test
    void aLostRunThatEndedIsForgottenAndAReleaseNoLongerWaitsForIt() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        slots.lost(lease);
        assertTrue(runs.launched.stream().noneMatch(RecordingRuns.RecordingRun::isAlive));
        slots.acquired(lease);
        slots.sync();

        slots.release(lease);

        assertEquals(List.of(), runs.launched.get(0).awaits, "nothing of the lost run is left to wait for");
        assertEquals(List.of(), runs.launched.get(1).awaits);
    }

    @Test
    void aReleasedSlotsRobotsAreNeitherReadNorTakenAgain() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        slots.release(lease);
        long fences = robots.find(Filters.eq("_id", "a1")).first().getLong("fences");
        int standbyLinks = store.standbyLinks;

        slots.changed();
        slots.sync();

        assertEquals(standbyLinks, store.standbyLinks);
        assertEquals(
                fences, robots.find(Filters.eq("_id", "a1")).first().getLong("fences"), "no take after the release");
        assertEquals(2, runs.launched.size());
    }

    @Test
    void aSlotWonAgainAfterALossReadsItsRobotsAtItsFirstObservation() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        slots.observed(lease, view(lease, 1));
        slots.sync();
        slots.lost(lease);
        won(lease);
        stopByOperator("a1");

        slots.observed(lease, view(lease, 1));
        slots.sync();

        assertEquals(
                List.of("stop OPERATOR"), runs.run("a1").asked, "what the lost run saw says nothing about the new one");
    }

    // --- when a slot's robots are read again ---

    @Test
    void aSlotsRobotsAreReadAgainOnlyWhenItsChangesMoved() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        slots.observed(lease, view(lease, 1));
        slots.sync();
        runs.launched.forEach(r -> r.asked.clear());
        int wakesBefore = wakes.get();
        int standbyLinks = store.standbyLinks;

        stopByOperator("a1");
        slots.observed(lease, view(lease, 1));
        slots.sync();
        assertEquals(standbyLinks, store.standbyLinks, "no read while the slot's changes stay the same");
        assertEquals(wakesBefore, wakes.get());
        assertEquals(List.of("resend"), runs.run("a1").asked, "statuses that failed to arrive are sent again instead");

        slots.observed(lease, view(lease, 2));
        assertEquals(wakesBefore + 1, wakes.get(), "a change asks for a sync at once");
        slots.sync();
        assertEquals(List.of("resend", "stop OPERATOR"), runs.run("a1").asked);
        assertEquals(List.of("resend", "resend"), runs.run("a2").asked);
    }

    @Test
    void theFirstObservationOfASlotReadsItsRobots() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        stopByOperator("a1");

        slots.observed(lease, view(lease, 0));
        slots.sync();

        assertEquals(List.of("stop OPERATOR"), runs.run("a1").asked, "nothing known of its changes before: read");
    }

    @Test
    void aChangeStreamEventReadsEverySlotsRobots() {
        FixedLease lease0 = FixedLease.valid();
        FixedLease lease1 = new FixedLease("slot-1", 2, true);
        won(lease0, lease1);
        stopByOperator("a1");
        stopByOperator("b1");

        slots.changed();
        slots.sync();

        assertEquals(List.of("stop OPERATOR"), runs.run("a1").asked);
        assertEquals(List.of("stop OPERATOR"), runs.run("b1").asked);
    }

    @Test
    void everySlotsRobotsAreReadAgainEveryResyncWhateverItsChangesSay() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        stopByOperator("a1");
        // The operator died between the robot's write and the slot's change mark.
        runs.clock.tick(RESYNC.minusNanos(1));
        slots.sync();
        assertEquals(List.of("resend"), runs.run("a1").asked);

        runs.clock.tick(Duration.ofNanos(1));
        slots.sync();
        assertEquals(List.of("resend", "stop OPERATOR"), runs.run("a1").asked, "a resync after the first full read");

        runs.clock.tick(RESYNC.minusNanos(1));
        slots.sync();
        assertEquals(
                List.of("resend", "stop OPERATOR", "resend"),
                runs.run("a1").asked,
                "the resync counts from the last full read");
    }

    // --- failures ---

    @Test
    void aBeginThatFailsIsTriedAgainAtTheNextSync() {
        FixedLease lease = FixedLease.valid();
        slots.acquired(lease);
        store.failFence = true;

        assertThrows(IllegalStateException.class, slots::sync);
        assertEquals(List.of(), runs.launchedIds());

        store.failFence = false;
        slots.sync();
        assertEquals(List.of("a1", "a2"), runs.launchedIds().stream().sorted().toList());
    }

    @Test
    void aReadThatFailsLeavesTheSlotsToBeReadAtTheNextSync() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        stopByOperator("a1");
        slots.observed(lease, view(lease, 1));
        store.failWatch = true;

        assertThrows(IllegalStateException.class, slots::sync);

        store.failWatch = false;
        slots.sync();
        assertEquals(List.of("stop OPERATOR"), runs.run("a1").asked);
    }

    @Test
    void aSlotWhoseReconcileFailsIsReadAgainWhileTheOthersAreReconciled() {
        FixedLease lease0 = FixedLease.valid();
        FixedLease lease1 = new FixedLease("slot-1", 2, true);
        won(lease0, lease1);
        // A robot new to slot-0 makes its reconcile fence, which fails; slot-1's reconcile is independent.
        robots.insertOne(RobotCodec.newRobot("a3", "counter", "slot-0", 0, 1, new Document()));
        stopByOperator("b1");
        store.failFence = true;
        slots.changed();

        IllegalStateException failure = assertThrows(IllegalStateException.class, slots::sync);
        assertSame(store.fenceFailure, failure);
        assertEquals(List.of("stop OPERATOR"), runs.run("b1").asked, "slot-1 reconciled despite slot-0's failure");

        store.failFence = false;
        slots.sync();
        assertTrue(runs.launchedIds().contains("a3"), "slot-0 read again at the next sync");
        assertEquals(
                List.of("stop OPERATOR", "resend"), runs.run("b1").asked, "slot-1 is not read again: it was not dirty");
    }

    @Test
    void aSlotLostWhileItsRobotsAreReadIsNotReconciled() {
        FixedLease lease = FixedLease.valid();
        won(lease);
        long fences = robots.find(Filters.eq("_id", "a1")).first().getLong("fences");
        store.afterWatch = () -> slots.lost(lease);

        slots.changed();
        slots.sync();

        assertEquals(List.of("interrupt"), runs.run("a1").asked, "interrupted by the loss, then left alone");
        assertEquals(2, runs.launched.size());
        assertEquals(
                fences, robots.find(Filters.eq("_id", "a1")).first().getLong("fences"), "no take under a lost lease");
    }

    @Test
    void theWorkloadCountsTheRunningRobotsAndThoseFailedForGood() {
        robots.updateOne(Filters.eq("_id", "a2"), Updates.set("state", "FAILED"));
        slots.acquired(FixedLease.valid());
        slots.acquired(new FixedLease("slot-1", 2, true));
        slots.sync();

        assertEquals(new Workload(2, 1, List.of()), slots.workload());
    }
}
