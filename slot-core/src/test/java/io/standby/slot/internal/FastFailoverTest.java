package io.standby.slot.internal;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.LATE_AT_4S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.LossReason;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeView;
import io.standby.slot.RecordingListener;
import io.standby.slot.RecordingListener.Event;
import io.standby.slot.RecordingListener.Kind;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fast failover in the protocol, against the real wire server, with scripted connects: a late owner whose address
 * refuses is taken over at once with a compare-and-set on the version read; one whose address accepts (a frozen
 * process) keeps its slot until the lease runs out; a node whose own listener is gone fences itself. Heartbeat ages are
 * set up by writing the slot document, never by sleeping.
 */
class FastFailoverTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(LATE_AT_4S);

    private final ManualClock clock = protocol.clock();
    private final List<Event> log = new CopyOnWriteArrayList<>();
    private final List<Duration> sleeps = protocol.sleeps();
    private final ScriptedProbe probe = new ScriptedProbe();

    @BeforeEach
    void setUp() {
        protocol.init(1);
    }

    /**
     * A node whose connects the test scripts, fast failover on, in {@code registry} ({@link NodeRegistry#NONE}: none).
     */
    private SlotProtocol node(NodeId id, String instance, NodeRegistry registry) {
        // Bound: a node process binds its address before it claims, which is what fast failover relies on.
        return protocol.node(id)
                .instance(instance)
                .bound()
                .listener(new RecordingListener("n" + id.port(), log))
                .member(registry)
                .fastFailover(probe)
                .build();
    }

    private SlotProtocol node(NodeId id, String instance) {
        return node(id, instance, NodeRegistry.NONE);
    }

    private SlotProtocol node(NodeId id) {
        return node(id, NodeConfig.newInstanceId());
    }

    /** The same, writing itself into the nodes registry and planning its claims from it. */
    private SlotProtocol member(NodeId id, NodeRegistry registry) {
        return node(id, NodeConfig.newInstanceId(), registry);
    }

    private SlotView slot() {
        return protocol.store().read("slot-0").orElseThrow();
    }

    /**
     * The server sees the last heartbeat 5 s ago: past the owner's late mark (4 s), well within the 10 s lease. The
     * standby reads that version, claims nothing yet, and then watches it unchanged for the late mark on its own clock,
     * as it must before any early takeover.
     */
    private void lateHeartbeat(SlotProtocol standby) throws InterruptedException {
        lastBeatFiveSecondsAgo();
        assertFalse(slot().expired());
        assertTrue(slot().isLate());
        assertEquals(
                0,
                standby.poll(),
                "late by the server's clock, but not yet watched for the late mark on the standby's own");
        clock.tick(LATE_AT_4S.late());
    }

    /** The server sees the owner's last heartbeat, on the slot and on its owner document, 5 s ago. */
    private void lastBeatFiveSecondsAgo() {
        Date fiveSecondsAgo = Date.from(Instant.now().minusSeconds(5));
        protocol.slots().updateOne(Filters.eq("_id", "slot-0"), Updates.set("time", fiveSecondsAgo));
        // The owner's document went quiet with the same renewal: its last beat is as old.
        protocol.owners()
                .updateMany(Filters.gte("_id", SlotFields.OWNER_PREFIX), Updates.set(SlotFields.AT, fiveSecondsAgo));
    }

    /** The owner's process dies: its heartbeat goes late, and its host refuses connects to its port. */
    private void ownerDies(SlotProtocol standby) throws InterruptedException {
        probe.always(A, REFUSED);
        lateHeartbeat(standby);
    }

    /**
     * A standby of {@code owner}, both polled once while the owner's connects answer {@code answer}, then the owner's
     * heartbeat gone late.
     */
    private SlotProtocol standbyOfALateOwner(SlotProtocol owner, OwnerProbe.Result answer) throws InterruptedException {
        SlotProtocol standby = node(B);
        probe.always(A, answer);
        owner.poll();
        standby.poll();
        lateHeartbeat(standby);
        return standby;
    }

    @Test
    void aLateOwnerWhoseAddressRefusesTwiceAfterAcceptingBeforeIsTakenOverAtOnce() throws Exception {
        SlotProtocol owner = node(A);
        SlotProtocol standby = node(B);
        probe.then(A, ACCEPTED);
        assertEquals(1, owner.poll());
        assertEquals(0, standby.poll(), "a timely owner: the standby only learns that its address accepts");
        assertEquals(1, probe.probesOf(A));

        ownerDies(standby);
        SlotView seen = slot();
        assertEquals(1, standby.poll());

        SlotView taken = slot();
        assertEquals(B, taken.owner());
        assertEquals(seen.epoch() + 1, taken.epoch(), "a new epoch fences the former owner's writes");
        assertEquals(3, probe.probesOf(A), "one to learn, two refused");
        assertTrue(sleeps.contains(GoneOwners.GAP), "a gap between the two refused connects: " + sleeps);
        assertEquals(1, standby.claims().won());

        owner.renewAll();
        assertEquals(
                LossReason.TAKEN,
                new RecordingListener("n7001", log)
                        .mine().stream()
                                .filter(e -> e.kind() == Kind.LOST)
                                .findFirst()
                                .orElseThrow()
                                .reason());
    }

    @Test
    void aGoneOwnersRegistryDocumentIsRemovedSoThatViewsAndPlansStopCountingItAtOnce() throws Exception {
        MongoNodeRegistry registry = protocol.registry();
        SlotProtocol owner = member(A, registry);
        SlotProtocol standby = member(B, registry);
        probe.then(A, ACCEPTED);
        assertEquals(1, owner.poll());
        assertEquals(0, standby.poll());
        assertEquals(
                List.of(A, B),
                registry.readAll().stream()
                        .map(NodeView::id)
                        .sorted(Comparator.comparing(NodeId::port))
                        .toList());

        ownerDies(standby);
        assertEquals(1, standby.poll());

        assertEquals(
                List.of(B),
                registry.readAll().stream().map(NodeView::id).toList(),
                "the dead owner's document is gone; it would show as standing by for three of its intervals");
    }

    @Test
    void aNextInstanceUnderTheSameAddressThatRefusesFromItsStartIsNotTakenForGoneWhenLate() throws Exception {
        SlotProtocol first = node(A);
        SlotProtocol standby = node(B);
        probe.then(A, ACCEPTED);
        assertEquals(1, first.poll());
        assertEquals(0, standby.poll(), "the standby learns that the first instance's address accepts");

        // The first process exits. The next one binds the same address behind a rule that rejects this
        // standby's connects from its start, and takes its slot back.
        probe.always(A, REFUSED);
        SlotProtocol next = node(A);
        assertEquals(1, next.poll());
        String nextInstance = slot().instance();
        assertEquals(0, standby.poll(), "a timely owner");
        lateHeartbeat(standby);

        assertEquals(0, standby.poll(), "the acceptance belonged to the first instance: no evidence against the next");
        assertEquals(A, slot().owner());
        assertEquals(nextInstance, slot().instance());
    }

    @Test
    void aStandbyThatWatchesATimelyOwnerKeepsItsEvidenceYoungAndTakesOverAtOnceWhenItDies() throws Exception {
        SlotProtocol owner = node(A);
        SlotProtocol standby = node(B);
        probe.always(A, ACCEPTED);
        owner.poll();
        long polls = GoneOwners.EVIDENCE_AGE.multipliedBy(2).dividedBy(LATE_AT_4S.poll());
        for (long i = 0; i < polls; i++) {
            clock.tick(LATE_AT_4S.poll());
            owner.renewAll();
            assertEquals(0, standby.poll());
        }

        ownerDies(standby);
        assertEquals(1, standby.poll());
        assertEquals(B, slot().owner());
    }

    @Test
    void evidenceThatAgedOutBeforeTheOwnerWentLateProvesNothing() throws Exception {
        // A standby that did not look at this owner for longer than the bound (busy, suspended) trusts no
        // old acceptance: the network between them may have changed since.
        SlotProtocol owner = node(A);
        SlotProtocol standby = node(B);
        probe.then(A, ACCEPTED);
        owner.poll();
        assertEquals(0, standby.poll());
        clock.tick(GoneOwners.EVIDENCE_AGE);

        ownerDies(standby);
        assertEquals(0, standby.poll());
        assertEquals(A, slot().owner());
    }

    @Test
    void aLateOwnerWhoseAddressStillAcceptsKeepsItsSlotUntilTheLeaseRunsOut() throws Exception {
        // A frozen process (SIGSTOP, a long pause): the kernel still accepts connects on its socket.
        SlotProtocol standby = standbyOfALateOwner(node(A), ACCEPTED);

        assertEquals(0, standby.poll());
        clock.tick(Duration.ofSeconds(1));
        assertEquals(0, standby.poll());

        assertEquals(A, slot().owner());
        assertEquals(1, slot().epoch());
    }

    @Test
    void refusalsFromAnAddressThatNeverAcceptedProveNothing() throws Exception {
        // A firewall that rejects with a TCP reset, or an identity this node does not reach, looks like this.
        SlotProtocol standby = standbyOfALateOwner(node(A), REFUSED);

        assertEquals(0, standby.poll());
        assertEquals(A, slot().owner());
    }

    @Test
    void aTimelyOwnerIsNeverProbedForItsDeath() throws Exception {
        SlotProtocol owner = node(A);
        SlotProtocol standby = node(B);
        probe.then(A, ACCEPTED).always(A, REFUSED);
        owner.poll();
        for (int i = 0; i < 3; i++) {
            owner.renewAll();
            assertEquals(0, standby.poll());
        }
        assertEquals(1, probe.probesOf(A), "only the connect that learnt the address");
        assertEquals(A, slot().owner());
    }

    @Test
    void anOwnerOnAnotherHostUnderAnAddressOfThisMachineIsNeverProbed() throws Exception {
        // 127.0.0.1 on another host is not this machine's 127.0.0.1: a connect here says nothing about it.
        SlotProtocol standby = standbyOfALateOwner(node(A, "4242-0a0b0c0d@elsewhere:0f0e0d0c:4026531840"), REFUSED);

        assertEquals(0, standby.poll());
        assertEquals(0, probe.probesOf(A));
    }

    /** The standby's claim loses (the owner renewed after the read): it wins nothing, and counts one lost race. */
    @Test
    void aTakeoverThatLosesItsRaceToARenewalIsCountedLostAndTakesNoLease() throws Exception {
        SlotProtocol owner = node(A);
        SlotStore renewedFirst = new FailingSlotStore(protocol.store()) {
            @Override
            public boolean claimFromGone(SlotView seen, Ownership me, java.util.OptionalLong ownerBeat) {
                protocol.db()
                        .database()
                        .getCollection(SlotFields.COLLECTION)
                        .updateOne(Filters.eq("_id", seen.id()), Updates.currentDate(SlotFields.TIME));
                return super.claimFromGone(seen, me, ownerBeat);
            }
        };
        SlotProtocol standby = protocol.node(B)
                .bound()
                .listener(new RecordingListener("n" + B.port(), log))
                .fastFailover(probe)
                .on(renewedFirst)
                .build();
        probe.then(A, ACCEPTED);
        assertEquals(1, owner.poll());
        assertEquals(0, standby.poll());

        ownerDies(standby);
        assertEquals(0, standby.poll(), "the owner's renewal landed first");

        assertEquals(A, slot().owner());
        assertTrue(standby.leases().isEmpty());
        assertEquals(new io.standby.slot.ClaimCounts(0, 1, 0), standby.claims());
    }

    @Test
    void anOwnerThatRenewedBetweenTheReadAndTheClaimKeepsItsSlot() {
        SlotProtocol owner = node(A);
        probe.always(A, ACCEPTED);
        try {
            owner.poll();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        SlotView seen = slot();
        owner.renewAll();

        assertFalse(protocol.store()
                .claimFromGone(seen, new SlotStore.Ownership(B, NodeConfig.newInstanceId(), LATE_AT_4S.lease())));
        assertEquals(A, slot().owner());
    }

    @Test
    void aNodeWhoseOwnListenerIsGoneFencesEveryLeaseAtOnceAndClaimsNoMore() throws Exception {
        SlotProtocol owner = node(A);
        probe.then(A, ACCEPTED, REFUSED);
        owner.poll();

        assertTrue(owner.checkIdentity().isEmpty(), "its address accepts");
        String lost = owner.checkIdentity().orElseThrow();

        assertTrue(lost.contains("refuses connects"), lost);
        assertTrue(owner.leases().isEmpty());
        assertEquals(
                LossReason.FENCED,
                new RecordingListener("n7001", log)
                        .mine().stream()
                                .filter(e -> e.kind() == Kind.LOST)
                                .findFirst()
                                .orElseThrow()
                                .reason());
        assertEquals(0, owner.poll(), "claims no more");
        assertTrue(owner.leases().isEmpty());
    }

    @Test
    void aNodeThatLostItsIdentityLeavesThePlansSoThatNoStandbyWaitsAHeadStartForIt() throws Exception {
        MongoNodeRegistry registry = protocol.registry();
        // A standby that a plan counting the lost node would make wait a head start for it.
        NodeId standbyId = IntStream.range(7100, 7400)
                .mapToObj(port -> new NodeId("127.0.0.1", port))
                .filter(b -> !ClaimPlan.mine(
                                List.of(slot()),
                                List.of(slot()),
                                List.of(new ClaimPlan.Member(A, 0, 1), new ClaimPlan.Member(b, 0, 1)),
                                b)
                        .contains("slot-0"))
                .findFirst()
                .orElseThrow();
        SlotProtocol owner = member(A, registry);
        probe.then(A, ACCEPTED, REFUSED);
        assertEquals(1, owner.poll());
        assertTrue(owner.checkIdentity().isEmpty());
        owner.checkIdentity().orElseThrow();

        // It polls on until its application closes it: it says what it is now, and hands back the slot it fenced.
        clock.tick(LATE_AT_4S.poll());
        assertEquals(0, owner.poll());
        assertTrue(slot().released());

        assertEquals(List.of(), registry.readLive(), "a node that claims nothing more offers no room to the plans");
        SlotProtocol standby = member(standbyId, registry);
        assertEquals(1, standby.poll(), "the standby claims at its first poll, without waiting for the lost node");
    }

    @Test
    void aNodeWhoseAddressHasNotListenedYetIsNotFenced() throws Exception {
        // An application that listens on the node's address itself may start listening after the node.
        SlotProtocol owner = node(A);
        probe.always(A, REFUSED);
        owner.poll();

        assertTrue(owner.checkIdentity().isEmpty());
        assertEquals(1, owner.leases().size());
    }

    private List<Kind> kindsOf(String node) {
        return new RecordingListener(node, log).mine().stream().map(Event::kind).toList();
    }

    /**
     * The owner side of fast failover: cut off from the database for the late mark minus its margin, an owner pauses
     * its robots (its lease not valid), because a standby may take the slot early from here on if a connect to it is
     * refused, which happens to live processes too. It keeps the slot, and a renewal acknowledged in time resumes it
     * under the same epoch. Its own clock decides, from the send of its last acknowledged renewal.
     */
    @Test
    void anOwnerWithoutAnAcknowledgedRenewalForTheLateMarkPausesKeepsTheSlotAndResumesUnderTheSameEpoch()
            throws Exception {
        SlotProtocol owner = node(A);
        probe.always(A, ACCEPTED);
        assertEquals(1, owner.poll());
        var lease = owner.leases().getFirst();
        Duration pauseAt = LATE_AT_4S.late().minus(LATE_AT_4S.lateMargin());

        clock.tick(pauseAt.minusMillis(1));
        owner.checkFences();
        assertTrue(lease.isValid(), "before the late point");
        assertEquals(List.of(Kind.ACQUIRED), kindsOf("n7001"));

        clock.tick(Duration.ofMillis(1));
        assertFalse(lease.isValid(), "not valid from the late point on, before any check");
        owner.checkFences();
        owner.checkFences();
        assertEquals(List.of(Kind.ACQUIRED, Kind.PAUSED), kindsOf("n7001"), "paused once");
        assertEquals(List.of(lease), owner.leases(), "the slot is kept");
        assertEquals(A, slot().owner());

        owner.renewAll();
        assertTrue(lease.isValid());
        assertEquals(List.of(Kind.ACQUIRED, Kind.PAUSED, Kind.RESUMED), kindsOf("n7001"));
        assertEquals(1, slot().epoch(), "no new epoch: nobody else ran the robots");
        assertEquals(1, lease.epoch());

        clock.tick(pauseAt);
        owner.checkFences();
        clock.tick(LATE_AT_4S.lease().minus(LATE_AT_4S.fenceMargin()).minus(pauseAt));
        owner.checkFences();
        assertEquals(
                List.of(Kind.ACQUIRED, Kind.PAUSED, Kind.RESUMED, Kind.PAUSED, Kind.LOST),
                kindsOf("n7001"),
                "a pause that lasts to the lease's own deadline ends the lease");
        assertTrue(owner.leases().isEmpty());
    }

    /**
     * A renewal acknowledged after the late point: the robots may have seen the lease invalid, so they pause and
     * resume.
     */
    @Test
    void aRenewalAnsweredAfterTheLatePointPausesAndResumesEvenBeforeAFenceCheck() throws Exception {
        SlotProtocol owner = node(A);
        assertEquals(1, owner.poll());
        clock.tick(LATE_AT_4S.late());
        owner.renewAll();
        assertEquals(List.of(Kind.ACQUIRED, Kind.PAUSED, Kind.RESUMED), kindsOf("n7001"));
        assertTrue(owner.leases().getFirst().isValid());
    }

    /** A graceful release of a paused lease keeps its robots stopped: it never resumes on the way out. */
    @Test
    void aPausedLeaseBeingReleasedNeverResumes() throws Exception {
        SlotProtocol owner = node(A);
        assertEquals(1, owner.poll());
        clock.tick(LATE_AT_4S.late());
        owner.checkFences();
        owner.releaseAll();
        owner.renewAll();
        assertEquals(List.of(Kind.ACQUIRED, Kind.PAUSED, Kind.RELEASING, Kind.LOST), kindsOf("n7001"));
        assertEquals(null, slot().owner());
    }

    /**
     * Without fast failover an owner writes no late mark and never pauses; a standby with fast failover then waits for
     * its lease however late it is and whatever its connects say: the owner never promised to stop at the mark.
     */
    @Test
    void anOwnerWithoutFastFailoverIsNeverTakenOverEarlyAndNeverPauses() throws Exception {
        SlotProtocol owner =
                protocol.node(A).listener(new RecordingListener("n7001", log)).build();
        SlotProtocol standby = node(B);
        probe.then(A, ACCEPTED).always(A, REFUSED);
        assertEquals(1, owner.poll());
        assertEquals(null, slot().lateMark());
        assertEquals(0, standby.poll());

        clock.tick(LATE_AT_4S.late());
        owner.checkFences();
        assertEquals(List.of(Kind.ACQUIRED), kindsOf("n7001"), "no pause without a late mark");
        lastBeatFiveSecondsAgo();
        assertEquals(0, standby.poll());
        clock.tick(LATE_AT_4S.late());
        assertEquals(0, standby.poll(), "no early takeover of an owner that wrote no late mark");
        assertEquals(A, slot().owner());
    }
}
