package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeView;
import io.standby.slot.RecordingListener;
import io.standby.slot.RecordingListener.Event;
import io.standby.slot.RecordingListener.Kind;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The protocol's decisions, driven step by step with a hand-moved clock against the real wire server. Facts the server
 * judges by its own clock (a lease that expired) are set up by writing the slot document, never by sleeping.
 */
class SlotProtocolTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();
    private final List<Event> log = new CopyOnWriteArrayList<>();
    private final List<Duration> sleeps = protocol.sleeps();

    private SlotProtocol node(int port, int maxSlots) {
        return node(port, maxSlots, NodeConfig.newInstanceId());
    }

    private SlotProtocol node(int port, int maxSlots, String instance) {
        return node(port, maxSlots, instance, false);
    }

    /** A node whose process bound its ip:port before it started: it proved the earlier processes with it gone. */
    private SlotProtocol bound(int port, int maxSlots) {
        return node(port, maxSlots, NodeConfig.newInstanceId(), true);
    }

    private SlotProtocol node(int port, int maxSlots, String instance, boolean addressBound) {
        return protocol.node(new NodeId("127.0.0.1", port))
                .maxSlots(maxSlots)
                .instance(instance)
                .bound(addressBound)
                .listener(new RecordingListener("n" + port, log))
                .build();
    }

    /** A node that writes itself into the registry and plans its claims from it. */
    private SlotProtocol member(int port, int maxSlots) {
        return protocol.member(new NodeId("127.0.0.1", port))
                .maxSlots(maxSlots)
                .listener(new RecordingListener("n" + port, log))
                .build();
    }

    /** Makes the server see the slot's last heartbeat as long past, as a dead owner would leave it. */
    private void ageHeartbeat(String id) {
        ageHeartbeat(id, Duration.ofSeconds(60));
    }

    private void ageHeartbeat(String id, Duration ago) {
        protocol.slots()
                .updateOne(
                        Filters.eq("_id", id),
                        Updates.set("time", Date.from(Instant.now().minus(ago))));
    }

    @Test
    void claimsAFreeSlotAndIncrementsTheEpoch() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);

        assertEquals(1, a.poll());

        SlotView s = protocol.slot("slot-0");
        assertEquals(new NodeId("127.0.0.1", 7001), s.owner());
        assertEquals(a.config().instance(), s.instance());
        assertEquals(1, s.epoch());
        assertEquals(5000, s.lease().toMillis());
        assertEquals(1, a.leases().getFirst().epoch());
        assertTrue(a.leases().getFirst().isValid());
    }

    @Test
    void aNodeNeverOwnsMoreThanMaxSlots() throws Exception {
        protocol.init(5);
        SlotProtocol a = node(7001, 3);

        assertEquals(3, a.poll());
        assertEquals(0, a.poll());

        assertEquals(3, a.leases().size());
        assertEquals(
                3,
                protocol.store().readAll().stream()
                        .filter(s -> s.owner() != null)
                        .count());
        assertEquals(List.of(), sleeps, "without a registry there is nobody to wait for");
        assertEquals(3, a.claims().won());
    }

    @Test
    void aStandbyWaitsAFullLeaseOnItsOwnClockEvenWhenTheServerSaysExpired() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        SlotProtocol b = node(7002, 1);
        a.poll();
        // The server now judges the lease expired (as after a jump of its clock), but b has only just
        // seen this version of the document.
        ageHeartbeat("slot-0");
        assertTrue(protocol.slot("slot-0").expired());

        assertEquals(0, b.poll());
        clock.tick(Duration.ofMillis(4999));
        assertEquals(0, b.poll());
        clock.tick(Duration.ofMillis(1));
        assertEquals(1, b.poll());

        assertEquals(new NodeId("127.0.0.1", 7002), protocol.slot("slot-0").owner());
        assertEquals(2, protocol.slot("slot-0").epoch());
    }

    @Test
    void howASlotChangesHandsIsRecordedWithTheServersTimesAndTheTakeoverGap() throws Exception {
        protocol.init(1);
        EventLog events = new EventLog(protocol.db().database()).start();
        SlotProtocol a = protocol.node(new NodeId("127.0.0.1", 7001))
                .listener(new EventRecorder(events))
                .build();
        SlotProtocol b = protocol.node(new NodeId("127.0.0.1", 7002))
                .listener(new EventRecorder(events))
                .build();
        assertEquals(1, a.poll());
        ageHeartbeat("slot-0");
        Instant lastHeartbeat = protocol.slot("slot-0").time();
        b.poll();
        clock.tick(Duration.ofSeconds(5));
        assertEquals(1, b.poll());
        a.renewAll();
        b.releaseAll();
        events.close(Duration.ofSeconds(10));

        List<io.standby.slot.EventView> recorded =
                new io.standby.slot.EventTable(protocol.db()).list(null, null, null, null);
        assertEquals(
                List.of("claimed 7001 1", "took-over 7002 2", "lost 7001 1", "released 7002 2"),
                recorded.stream()
                        .map(e -> e.type() + " " + e.node().split(":")[1] + " " + e.epoch())
                        .toList());
        io.standby.slot.EventView takeover = recorded.get(1);
        assertEquals("127.0.0.1:7001", takeover.from());
        assertEquals(lastHeartbeat, takeover.heartbeat());
        assertTrue(
                takeover.unowned().orElseThrow().compareTo(Duration.ofSeconds(59)) >= 0,
                "from the aged heartbeat to the claim, by the server's clock: " + takeover.unowned());
        assertEquals("taken", recorded.get(2).reason());
        assertEquals(
                1,
                new io.standby.slot.EventTable(protocol.db())
                        .list(null, "slot-0", null, takeover.time()).stream()
                                .filter(e -> e.type().equals("took-over"))
                                .count(),
                "a follow from the take-over's time sees it");
    }

    @Test
    void aRenewalRestartsTheStandbysWait() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        SlotProtocol b = node(7002, 1);
        a.poll();
        ageHeartbeat("slot-0");
        b.poll();
        clock.tick(Duration.ofSeconds(3));
        // The owner renews (a new version of the document), then falls silent again. Aged a second less than
        // before: the same instant twice, within one millisecond, would look like no new version at all.
        a.renewAll();
        ageHeartbeat("slot-0", Duration.ofSeconds(59));
        b.poll();
        clock.tick(Duration.ofSeconds(3));

        assertEquals(0, b.poll(), "6s after the first sighting, but only 3s after the last change");
        clock.tick(Duration.ofSeconds(2));
        assertEquals(1, b.poll());
    }

    @Test
    void aLiveLeaseIsNeverClaimedHoweverLongTheStandbyWatches() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        SlotProtocol b = node(7002, 1);
        a.poll();
        b.poll();
        clock.tick(Duration.ofMinutes(10));

        // Unchanged for ten minutes on b's clock, but the server's clock says the lease is live: the
        // compare-and-set filter refuses.
        assertEquals(0, b.poll());
        assertEquals(new NodeId("127.0.0.1", 7001), protocol.slot("slot-0").owner());
    }

    @Test
    void anOwnerFencesItselfWhenNoRenewalSucceedsWithinLeaseMinusMargin() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        a.poll();
        Lease lease = a.leases().getFirst();

        clock.tick(Duration.ofMillis(4499));
        a.checkFences();
        assertTrue(lease.isValid());
        clock.tick(Duration.ofMillis(1));
        assertFalse(lease.isValid(), "invalid the moment the deadline passes, before the fence check runs");
        a.checkFences();

        Event lost = log.getLast();
        assertEquals(Kind.LOST, lost.kind());
        assertEquals(LossReason.FENCED, lost.reason());
        assertTrue(a.leases().isEmpty());
    }

    @Test
    void anOwnerWhoseMachineWasSuspendedPastItsDeadlineFencesAtOnceOnWaking() throws Exception {
        protocol.init(1);
        // A suspended machine's monotonic clock stands still while the wall clock, and the database, go on.
        java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        MonotonicClock awake = new SuspendAwareClock(clock, wall::get);
        NodeConfig config = new NodeConfig(new NodeId("127.0.0.1", 7001), 1, TIMING, NodeConfig.newInstanceId());
        SlotProtocol a =
                new SlotProtocol(ProtocolSetup.of(protocol.store(), config, awake, new RecordingListener("n7001", log))
                        .withSleeper(sleeps::add));
        a.poll();
        Lease lease = a.leases().getFirst();
        clock.tick(Duration.ofSeconds(1));
        wall.addAndGet(1000);
        a.renewAll();
        assertTrue(lease.isValid());

        wall.addAndGet(Duration.ofMinutes(10).toMillis()); // the lid closes for ten minutes
        clock.tick(Duration.ofMillis(1));

        assertFalse(lease.isValid(), "the ten minutes count although the monotonic clock did not see them");
        a.checkFences();
        assertEquals(LossReason.FENCED, log.getLast().reason());
    }

    @Test
    void aWallClockStepBackIsNotASuspend() throws Exception {
        java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        MonotonicClock awake = new SuspendAwareClock(clock, wall::get);
        long before = awake.nanoTime();
        wall.addAndGet(-Duration.ofMinutes(5).toMillis());
        clock.tick(Duration.ofSeconds(1));
        assertEquals(Duration.ofSeconds(1).toNanos(), awake.nanoTime() - before);
        wall.addAndGet(1000 + 50); // slewed a little: within the tolerance, not a suspend
        clock.tick(Duration.ofSeconds(1));
        assertEquals(Duration.ofSeconds(2).toNanos(), awake.nanoTime() - before);
    }

    @Test
    void aRenewalThatLandsAfterTheDeadlineDoesNotReviveTheLease() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        a.poll();
        Lease lease = a.leases().getFirst();
        clock.tick(Duration.ofMillis(4600));

        a.renewAll();

        assertFalse(lease.isValid());
        assertEquals(LossReason.FENCED, log.getLast().reason());
    }

    @Test
    void aRenewalThatMatchesNothingReportsTheLossAtOnce() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        a.poll();
        // Someone else took it (epoch moved on, another owner).
        protocol.slots()
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.combine(
                                Updates.set("ip", "127.0.0.9"),
                                Updates.set("instance", "other"),
                                Updates.inc("epoch", 1L)));

        a.renewAll();

        assertEquals(LossReason.TAKEN, log.getLast().reason());
        assertTrue(a.leases().isEmpty());
    }

    @Test
    void forcedReleaseFencesTheOwnerAndMakesStandbysWaitOutTheLease() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        SlotProtocol b = node(7002, 1);
        a.poll();
        Instant heartbeat = protocol.slot("slot-0").time();

        SlotView before = new SlotTable(protocol.db()).forceRelease("slot-0").orElseThrow();
        assertEquals(new NodeId("127.0.0.1", 7001), before.owner());
        SlotView after = protocol.slot("slot-0");
        assertNull(after.owner());
        assertEquals(2, after.epoch());
        assertEquals(heartbeat, after.time(), "time is kept, so the lease runs out from the last heartbeat");

        b.poll();
        clock.tick(Duration.ofMinutes(1));
        assertEquals(0, b.poll(), "by the server's clock the former owner's lease is still running");
        a.renewAll();
        assertEquals(LossReason.REVOKED, log.getLast().reason());

        ageHeartbeat("slot-0");
        b.poll();
        clock.tick(Duration.ofSeconds(5));
        assertEquals(1, b.poll());
        assertEquals(3, protocol.slot("slot-0").epoch());
    }

    @Test
    void gracefulReleaseLetsAStandbyTakeTheSlotAtItsNextPollWithoutWaiting() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        SlotProtocol b = node(7002, 1);
        a.poll();
        b.poll();

        a.releaseAll();

        SlotView released = protocol.slot("slot-0");
        assertNull(released.owner());
        assertNull(released.instance());
        assertEquals(Instant.EPOCH, released.time());
        assertEquals(1, released.epoch(), "a graceful release keeps the epoch");
        List<Kind> kinds = log.stream()
                .filter(e -> e.node().equals("n7001"))
                .map(Event::kind)
                .toList();
        assertEquals(List.of(Kind.ACQUIRED, Kind.RELEASING, Kind.LOST), kinds);
        assertEquals(LossReason.RELEASED, log.getLast().reason());

        assertEquals(1, b.poll(), "no waiting on the standby's clock");
        assertEquals(2, protocol.slot("slot-0").epoch());
    }

    @Test
    void aRestartThatBoundItsAddressTakesItsSlotsBackAtOnce() throws Exception {
        protocol.init(3);
        SlotProtocol before = node(7001, 2);
        before.poll();
        List<String> held = before.leases().stream().map(Lease::slotId).toList();
        SlotProtocol standby = node(7002, 1);
        standby.poll();
        assertEquals(1, standby.leases().size());

        // Same ip:port, new process that bound it: its lease is live, yet the new instance takes it back at once.
        SlotProtocol after = bound(7001, 2);
        after.join();
        assertEquals(2, after.poll());

        assertEquals(held, after.leases().stream().map(Lease::slotId).toList());
        for (String id : held) {
            assertEquals(after.config().instance(), protocol.slot(id).instance());
            assertEquals(2, protocol.slot(id).epoch(), "the earlier instance is fenced by the new epoch");
        }
        before.renewAll();
        assertEquals(
                2,
                log.stream()
                        .filter(e -> e.node().equals("n7001") && e.reason() == LossReason.TAKEN)
                        .count());
    }

    @Test
    void aSecondProcessWithOneAddressOnThisHostThatDidNotBindItRefusesToStartAndNeverTakesTheSlot() throws Exception {
        protocol.init(1);
        // Two processes on this host with one ip:port, neither of which bound it (an embedder that binds
        // late, or none at all): nothing proves the first one gone.
        SlotProtocol first = node(7001, 1);
        first.join();
        assertEquals(1, first.poll());
        SlotProtocol second = node(7001, 1);

        IllegalStateException refused =
                org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, second::join);
        assertTrue(
                refused.getMessage().contains("127.0.0.1:7001")
                        && refused.getMessage().contains(first.config().instance()),
                refused.getMessage());

        // Polled all the same (an embedder that ignored the refusal): it stands by, as for a twin's slot.
        for (int i = 0; i < 3; i++) {
            assertEquals(0, second.poll());
            first.renewAll();
            clock.tick(TIMING.heartbeat());
        }
        assertEquals(first.config().instance(), protocol.slot("slot-0").instance());
        assertEquals(1, protocol.slot("slot-0").epoch(), "no take-back, no take-back of the take-back");
        assertTrue(log.stream().noneMatch(e -> e.kind() == Kind.LOST), "nobody lost a slot: " + log);

        // The first process dies: the second claims its slot once the lease has run out, like any standby.
        ageHeartbeat("slot-0");
        assertEquals(0, second.poll());
        clock.tick(TIMING.lease());
        assertEquals(1, second.poll());
        assertEquals(2, protocol.slot("slot-0").epoch());
    }

    @Test
    void aProcessNeverTakesBackAtOnceTheSlotOfAProcessWithItsAddressThatStartedAfterIt() throws Exception {
        aLaterProcessKeepsItsSlot(false);
    }

    @Test
    void aProcessThatBoundItsAddressNeverTakesBackAtOnceTheSlotOfAProcessThatStartedAfterItWithoutBinding()
            throws Exception {
        // Binding proves gone only the processes that were there before: a later one could not bind the address.
        aLaterProcessKeepsItsSlot(true);
    }

    private void aLaterProcessKeepsItsSlot(boolean firstBound) throws Exception {
        protocol.init(1);
        SlotProtocol other = node(7002, 1);
        assertEquals(1, other.poll());
        // The first process stands by; the second, on this host with the same ip:port, starts while the
        // first owns nothing, so nothing shows it the first.
        SlotProtocol first = node(7001, 1, NodeConfig.newInstanceId(), firstBound);
        first.join();
        assertEquals(0, first.poll());
        SlotProtocol second = node(7001, 1);
        second.join();
        other.releaseAll();
        assertEquals(1, second.poll(), "the released slot");

        assertEquals(0, first.poll(), "the second process's slot is not the first's to take back");
        second.renewAll();
        assertEquals(second.config().instance(), protocol.slot("slot-0").instance());
        assertEquals(2, protocol.slot("slot-0").epoch());
        assertTrue(
                log.stream().noneMatch(e -> e.kind() == Kind.LOST && e.node().equals("n7001")),
                "nobody lost a slot: " + log);
    }

    @Test
    void aNodeOnAnotherHostWithTheSameIdentityWaitsOutTheLeaseLikeAnyStandby() throws Exception {
        protocol.init(2);
        // 127.0.0.1:7001 on two machines (or behind NAT): binding the address proves nothing across hosts.
        SlotProtocol hostA = node(7001, 1, "1-aaaa@host-a:1111:1");
        SlotProtocol hostB = node(7001, 1, "2-bbbb@host-b:2222:1");
        hostA.poll();
        String slotOfA = hostA.leases().getFirst().slotId();

        assertEquals(1, hostB.poll(), "b takes the free slot, not a's");
        assertEquals(1, hostA.leases().size());
        assertEquals("1-aaaa@host-a:1111:1", protocol.slot(slotOfA).instance(), "a keeps its slot");
        hostA.renewAll();
        hostB.renewAll();
        assertTrue(log.stream().noneMatch(e -> e.kind() == Kind.LOST), "nobody lost a slot: " + log);
        assertEquals(0, hostA.poll());
        assertEquals(1, hostA.leases().size(), "a does not take b's slot back either");

        // Once a's lease has run out (by the server's clock and b's own), b may take a's slot as any standby would.
        SlotProtocol hostB2 = node(7001, 2, "3-cccc@host-b:2222:1", true);
        ageHeartbeat(slotOfA);
        assertEquals(1, hostB2.poll(), "b's restart takes back b's own slot at once");
        clock.tick(Duration.ofSeconds(5));
        assertEquals(1, hostB2.poll(), "and a's slot only after a full lease");
        assertEquals(2, hostB2.leases().size());
    }

    @Test
    void aNodeRefusesToStartWhileItsIdentityHoldsALiveLeaseOnAnotherHost() throws Exception {
        protocol.init(1);
        SlotProtocol hostA = node(7001, 1, "1-aaaa@host-a:1111:1");
        hostA.poll();
        SlotProtocol hostB = node(7001, 1, "2-bbbb@host-b:2222:1");

        IllegalStateException refused =
                org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, hostB::join);
        assertTrue(
                refused.getMessage().contains("127.0.0.1:7001")
                        && refused.getMessage().contains("host-a:1111:1")
                        && refused.getMessage().contains("host-b:2222:1"),
                refused.getMessage());
        node(7002, 1).join();
        node(7001, 1, "3-cccc@host-a:1111:1", true).join();
    }

    @Test
    void aGracefulStopTakesItsNodeOutOfThePlansBeforeItReleasesSoTheStandbyClaimsAtItsNextPoll() throws Exception {
        protocol.init(1);
        NodeId standby = new NodeId("127.0.0.1", 7002);
        // An owner the plan would prefer for slot-0 once it is free: were it still planned for after its
        // release, the standby would wait a head start for a node that is on its way out.
        int ownerPort = IntStream.range(7100, 7400)
                .filter(p -> ClaimPlan.mine(
                                protocol.store().readAll(),
                                protocol.store().readAll(),
                                List.of(
                                        new ClaimPlan.Member(new NodeId("127.0.0.1", p), 0, 1),
                                        new ClaimPlan.Member(standby, 0, 1)),
                                new NodeId("127.0.0.1", p))
                        .contains("slot-0"))
                .findFirst()
                .orElseThrow();
        SlotProtocol a = member(ownerPort, 1);
        SlotProtocol b = member(standby.port(), 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        clock.tick(TIMING.poll());

        a.releaseAll();

        assertEquals(1, b.poll(), "the standby claims the released slot at its first poll after the release");
        assertEquals(standby, protocol.slot("slot-0").owner());
    }

    @Test
    void aDrainingNodeReleasesItsNextSlotOnlyOnceTheLastIsOwnedElsewhereOrTwoPollsHavePassed() throws Exception {
        protocol.init(3);
        SlotProtocol a = member(7001, 3);
        assertEquals(3, a.poll());
        SlotProtocol b = member(7002, 3);
        assertEquals(0, b.poll(), "a standby with room for all three");
        new io.standby.slot.NodeTable(protocol.db()).drain(new NodeId("127.0.0.1", 7001));

        a.poll();
        assertNull(protocol.slot("slot-0").owner(), "the first slot is handed over");
        assertEquals(
                2,
                protocol.store().readAll().stream()
                        .filter(v -> v.owner() != null)
                        .count());
        clock.tick(TIMING.poll());
        a.poll();
        assertEquals(
                2,
                protocol.store().readAll().stream()
                        .filter(v -> v.owner() != null)
                        .count(),
                "one poll later, nobody has taken it: it waits");

        assertEquals(1, b.poll());
        a.poll();
        assertNull(protocol.slot("slot-1").owner(), "the first is owned elsewhere: the second goes");
        assertEquals(new NodeId("127.0.0.1", 7001), protocol.slot("slot-2").owner(), "one at a time");

        clock.tick(TIMING.poll().multipliedBy(2));
        a.poll();
        assertNull(protocol.slot("slot-2").owner(), "two polls without a taker: the next goes anyway");
    }

    @Test
    void anOwnerSeesADrainAtItsNextPollNotAtItsNextRegistryWrite() throws Exception {
        protocol.init(1);
        SlotProtocol a = member(7001, 1);
        SlotProtocol b = member(7002, 1);
        assertEquals(1, a.poll());
        assertEquals(0, b.poll());
        for (int i = 0; i < 3; i++) {
            // Past the registry writes that followed the claim: from now on a's next write is ten heartbeats away.
            clock.tick(TIMING.poll());
            a.poll();
            b.poll();
        }
        new io.standby.slot.NodeTable(protocol.db()).drain(new NodeId("127.0.0.1", 7001));

        clock.tick(TIMING.poll());
        a.poll();
        assertTrue(a.draining(), "seen at the next poll, not at the registry write due 20 s later");
        assertNull(protocol.slot("slot-0").owner(), "and the slot handed over at once");
        clock.tick(TIMING.poll());
        assertEquals(1, b.poll(), "the standby takes it at its next poll");
        a.poll();
        assertTrue(a.drained());
    }

    /** Members 7001 and 7002, room for one each, each holding one of two slots: neither has room for more. */
    private SlotProtocol[] twoFullMembers() throws InterruptedException {
        protocol.init(2);
        SlotProtocol a = member(7001, 1);
        SlotProtocol b = member(7002, 1);
        assertEquals(1, a.poll());
        clock.tick(TIMING.poll());
        assertEquals(1, b.poll());
        return new SlotProtocol[] {a, b};
    }

    @Test
    void aDrainNeverReleasesASlotWhileNoOtherLiveNodeHasRoomForIt() throws Exception {
        SlotProtocol[] ab = twoFullMembers();
        SlotProtocol a = ab[0];
        SlotProtocol b = ab[1];
        NodeId full = b.config().node();
        // Asked while there was room, say, which then went: straight through the registry, as the command
        // line would refuse it now.
        protocol.registry().requestDrain(full);

        for (int i = 0; i < 4; i++) {
            clock.tick(TIMING.poll());
            a.poll();
            b.poll();
        }
        assertTrue(b.draining());
        assertEquals(
                full, protocol.slot("slot-1").owner(), "the only other node is full: b keeps its slot and serves it");
        assertFalse(b.drained(), "and does not report drained");

        SlotProtocol c = member(7003, 1);
        assertEquals(0, c.poll(), "room appears");
        clock.tick(TIMING.poll());
        b.poll();
        assertNull(protocol.slot("slot-1").owner(), "now it goes");
        assertEquals(1, c.poll());
        clock.tick(TIMING.poll());
        b.poll();
        assertTrue(b.drained());
    }

    @Test
    void aForcedDrainReleasesEvenWithoutRoomAndAnUnforcedOneIsRefusedWritingNothing() throws Exception {
        SlotProtocol[] ab = twoFullMembers();
        SlotProtocol a = ab[0];
        SlotProtocol b = ab[1];
        NodeId full = b.config().node();
        io.standby.slot.NodeTable nodes = new io.standby.slot.NodeTable(protocol.db());

        IllegalStateException refused =
                org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> nodes.drain(full));
        assertEquals(
                "cannot drain 127.0.0.1:7002: it holds 1 slot and the other live nodes have room for 0; "
                        + "start a node with room, or force the drain to release its slots anyway",
                refused.getMessage());
        assertFalse(nodes.get(full).orElseThrow().drain(), "nothing written");
        assertNull(protocol.slot("slot-1").drain());
        clock.tick(TIMING.poll());
        b.poll();
        assertFalse(b.draining());

        nodes.forceDrain(full);
        clock.tick(TIMING.poll());
        b.poll();
        assertTrue(b.draining());
        assertNull(protocol.slot("slot-1").owner(), "forced: released with nowhere to go, as the operator asked");
        assertEquals(new NodeId("127.0.0.1", 7001), protocol.slot("slot-0").owner());
    }

    @Test
    void aPlannedNodeThatIsDeadDelaysItsSlotByTheHeadStartOnly() throws Exception {
        protocol.init(1);
        // A node that registered and died: the registry still shows it live, and the plan gives it slot-0.
        NodeId me = new NodeId("127.0.0.1", 7001);
        NodeId ghost = protocol.otherPlanned(me, 1, plan -> plan.contains("slot-0"));
        protocol.registerStandby(ghost, "1-dead@elsewhere", Duration.ofSeconds(10));
        SlotProtocol a = member(7001, 1);

        assertEquals(0, a.poll(), "the plan gives slot-0 to the other node: it goes first");
        assertEquals(1, sleeps.size(), "a fresh node let the registry settle once");
        clock.tick(Duration.ofMillis(499));
        assertEquals(0, a.poll(), "within the head start (half a poll)");
        clock.tick(Duration.ofMillis(1));
        assertEquals(1, a.poll(), "after it, this node claims it anyway");
        assertEquals(me, protocol.slot("slot-0").owner());
    }

    @Test
    void aNodeThatPlansReadsTheRegistryBeforeTheSlotsSoEveryWinInTheRegistryIsInTheTableToo() throws Exception {
        // The plan stays the same for every node as others win (ClaimPlan) only if the slot table it sees
        // is no older than the registry: a winner writes its slot first and its registry document after.
        protocol.init(2);
        NodeId me = new NodeId("127.0.0.1", 7001);
        NodeId other = protocol.otherPlanned(me, 2, plan -> plan.size() == 1);
        protocol.registerStandby(other, "1-slow@elsewhere", Duration.ofSeconds(10));
        List<String> reads = protocol.reads();
        SlotProtocol a = protocol.node(me)
                .maxSlots(2)
                .on(new MongoSlotStore(protocol.watched()))
                .member(new MongoNodeRegistry(protocol.watched().database()))
                .listener(new RecordingListener("n7001", log))
                .build();

        assertEquals(1, a.poll(), "this node's planned slot; the other's waits for its head start");
        assertEquals(List.of("nodes", "slots"), reads, "a cold start: registered and settled, then the registry first");
        reads.clear();
        clock.tick(TIMING.poll());
        assertEquals(1, a.poll(), "the other node's slot, after the head start");
        assertEquals(List.of("nodes", "slots"), reads, "a slot was claimable: the registry is read first");
        reads.clear();
        clock.tick(TIMING.poll());
        assertEquals(0, a.poll());
        assertEquals(List.of("slots"), reads, "nothing to claim: one read, the slots");
    }

    @Test
    void aNodeRegistersItselfAtALowRateAndLeavesWhenItStops() throws Exception {
        protocol.init(1);
        MongoNodeRegistry registry = protocol.registry();
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        NodeRegistry counting = new ForwardingNodeRegistry(registry) {
            @Override
            public boolean write(NodeRecord node, Write write) {
                writes.incrementAndGet();
                return super.write(node, write);
            }
        };
        NodeConfig config = new NodeConfig(new NodeId("127.0.0.1", 7001), 1, TIMING, NodeConfig.newInstanceId());
        SlotProtocol a =
                new SlotProtocol(ProtocolSetup.of(protocol.store(), config, clock, new RecordingListener("n7001", log))
                        .withSleeper(sleeps::add)
                        .withMembership(counting));
        assertEquals(1, a.poll());
        NodeView registered = registry.readAll().getFirst();
        assertEquals(new NodeId("127.0.0.1", 7001), registered.id());
        assertEquals(io.standby.slot.NodeState.STANDBY, registered.state(), "registered before its first claim");
        assertEquals(a.config().instance(), registered.instance());
        clock.tick(Duration.ofSeconds(1));
        a.poll();
        registered = registry.readAll().getFirst();
        assertEquals(io.standby.slot.NodeState.OWNER, registered.state(), "the claim shows at the next poll");
        assertEquals(List.of("slot-0"), registered.slots());
        int afterFirstPoll = writes.get();

        for (int i = 0; i < 19; i++) {
            clock.tick(Duration.ofSeconds(1));
            a.poll();
        }
        assertEquals(afterFirstPoll, writes.get(), "nothing changed and no write was due for 19 s");
        clock.tick(Duration.ofSeconds(1));
        a.poll();
        assertEquals(afterFirstPoll + 1, writes.get(), "due after ten heartbeats");

        a.releaseAll();
        a.leave();
        assertEquals(List.of(), registry.readAll(), "a graceful stop removes the document");
    }

    @Test
    void aNodeTakesBackAClaimWhoseReplyItNeverSaw() throws Exception {
        protocol.init(1);
        SlotProtocol a = node(7001, 1);
        // The claim landed but its reply was lost: the database says a owns slot-0, a does not know. Its
        // own instance: taken back at once, bound address or not.
        assertTrue(protocol.store()
                .claim(
                        protocol.slot("slot-0"),
                        new SlotStore.Ownership(a.config().node(), a.config().instance(), TIMING.lease())));

        assertEquals(1, a.poll());
        assertEquals(2, a.leases().getFirst().epoch());
    }

    @Test
    void aNodeWithoutRoomReleasesSlotsHeldUnderItsIdentity() throws Exception {
        protocol.init(2);
        SlotProtocol a = bound(7001, 1);
        // An earlier instance of this node, on this host, held two slots; this one has room for one.
        var earlier = new SlotStore.Ownership(
                a.config().node(), "earlier@" + a.config().host(), TIMING.lease());
        protocol.store().claim(protocol.slot("slot-0"), earlier);
        protocol.store().claim(protocol.slot("slot-1"), earlier);

        assertEquals(1, a.poll());

        String other = a.leases().getFirst().slotId().equals("slot-0") ? "slot-1" : "slot-0";
        assertTrue(protocol.slot(other).released());
        assertEquals(1, a.leases().size());
    }

    @Test
    void aNodeThatDidNotBindItsAddressNeitherTakesBackNorReleasesTheSlotsOfAnotherProcessWithIt() throws Exception {
        protocol.init(2);
        SlotProtocol a = node(7001, 1);
        // Another process on this host with this ip:port, perhaps alive: its slot is its own.
        protocol.store()
                .claim(
                        protocol.slot("slot-1"),
                        new SlotStore.Ownership(
                                a.config().node(), "other@" + a.config().host(), TIMING.lease()));

        assertEquals(1, a.poll(), "the free slot");
        assertEquals(0, a.poll(), "and, without room, it releases nothing either");
        assertEquals(List.of("slot-0"), a.leases().stream().map(Lease::slotId).toList());
        assertEquals("other@" + a.config().host(), protocol.slot("slot-1").instance());
        assertFalse(protocol.slot("slot-1").released());
    }

    @Test
    void malformedSlotDocumentsAreSkippedNotFatal() throws Exception {
        protocol.init(1);
        protocol.slots()
                .insertOne(
                        new Document("_id", "slot-7").append("epoch", "seven").append("time", "yesterday"));
        protocol.slots()
                .insertOne(new Document("_id", "slot-8")
                        .append("epoch", 0L)
                        .append("time", new Date(0))
                        .append("lease", 0L)
                        .append("ip", "not-an-ip")
                        .append("port", 1));
        protocol.slots().insertOne(new Document("_id", 42).append("epoch", 0L));
        SlotProtocol a = node(7001, 3);

        assertEquals(1, a.poll());
        assertEquals(
                List.of("slot-0"),
                protocol.store().readAll().stream().map(SlotView::id).toList());
        assertEquals("slot-0", a.leases().getFirst().slotId());
    }

    @Test
    void aClaimOfAVersionThatChangedSinceTheReadWinsNothing() {
        protocol.init(1);
        SlotView seen = protocol.slot("slot-0");
        var me = new SlotStore.Ownership(new NodeId("127.0.0.1", 7001), "i1", TIMING.lease());
        var other = new SlotStore.Ownership(new NodeId("127.0.0.1", 7002), "i2", TIMING.lease());

        assertTrue(protocol.store().claim(seen, other));
        assertFalse(protocol.store().claim(seen, me), "same epoch seen, but the slot moved on");
        assertEquals("i2", protocol.slot("slot-0").instance());
    }
}
