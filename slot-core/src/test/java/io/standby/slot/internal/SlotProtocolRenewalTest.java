package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.Lease;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.testing.ManualClock;
import io.standby.testing.CommandLog;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How an owner keeps its leases: every renewal is reported with its latency, a renewal with no answer ends nothing (the
 * fence deadline decides), a renewal that matches nothing ends the lease with the reason the slot shows, and the
 * listener hears of each held slot as the poll reads it, at the lease's own epoch only. A lease that ended is no longer
 * among the node's leases, even while the listener hears of the loss.
 */
class SlotProtocolRenewalTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();
    private final EveryEvent events = new EveryEvent();

    private SlotProtocol owner(SlotStore on, int maxSlots) {
        return protocol.node(A).maxSlots(maxSlots).on(on).listener(events).build();
    }

    @Test
    void everyRenewalIsReportedWithTheTimeItsAnswerTookOnTheOwnersClock() throws Exception {
        protocol.init(1);
        SlotStore slow = new FailingSlotStore(protocol.store()) {
            @Override
            public Renewals renewAll(Map<String, Long> held, Ownership owner) {
                Renewals renewed = super.renewAll(held, owner);
                clock.tick(Duration.ofMillis(300));
                return renewed;
            }
        };
        SlotProtocol a = owner(slow, 1);
        a.poll();

        a.renewAll();

        assertEquals(List.of("claimed slot-0 WON", "acquired slot-0@1", "renewed slot-0@1"), events.lines);
        assertEquals(List.of(Duration.ofMillis(300)), events.renewalLatencies);
    }

    @Test
    void anOwnerRenewsAllItsSlotsInOneCommandAndLosesATakenOneInTheSameRound() throws Exception {
        protocol.init(20);
        CommandLog commands = new CommandLog();
        try (StandbyDatabase watched = StandbyDatabase.connect(
                TestMongo.uri(),
                protocol.db().database().getName(),
                Duration.ofSeconds(10),
                settings -> settings.addCommandListener(commands))) {
            SlotProtocol a = owner(new MongoSlotStore(watched), 20);
            assertEquals(20, a.poll());
            int before = commands.on("slots").size();

            a.renewAll();
            assertEquals(
                    List.of("update"),
                    names(commands.on("slots")
                            .subList(before, commands.on("slots").size())),
                    "one command for twenty slots");
            assertEquals(20, events.starting("renewed").size());

            protocol.slots()
                    .updateOne(
                            Filters.eq("_id", "slot-7"),
                            Updates.combine(Updates.set("instance", "other"), Updates.inc("epoch", 1L)));
            before = commands.on("slots").size();
            a.renewAll();
            assertEquals(
                    List.of("update", "aggregate"),
                    names(commands.on("slots")
                            .subList(before, commands.on("slots").size())),
                    "the renewal, and one read of the slots it did not match");
            assertEquals(List.of("lost slot-7@1 TAKEN"), events.starting("lost"));
            assertEquals(39, events.starting("renewed").size(), "the other nineteen renewed in the same round");
            assertEquals(19, a.leases().size());
        }
    }

    private static List<String> names(List<BsonDocument> commands) {
        return commands.stream().map(BsonDocument::getFirstKey).toList();
    }

    @Test
    void aRenewalWithNoAnswerEndsNothingAndTheNextOneKeepsTheLease() throws Exception {
        protocol.init(1);
        FailingSlotStore failing = new FailingSlotStore(protocol.store());
        SlotProtocol a = owner(failing, 1);
        a.poll();
        Lease lease = a.leases().getFirst();

        failing.fail(FailingSlotStore.Call.RENEW);
        clock.tick(TIMING.heartbeat());
        a.renewAll();
        assertEquals(List.of("renewalFailed slot-0@1"), events.starting("renewal"));
        assertTrue(lease.isValid(), "not a loss: the fence deadline decides");
        assertEquals(List.of(lease), a.leases());

        failing.heal();
        clock.tick(TIMING.heartbeat());
        a.renewAll();
        assertEquals(List.of("renewed slot-0@1"), events.starting("renewed"));
        clock.tick(Duration.ofSeconds(4));
        a.checkFences();
        assertTrue(lease.isValid(), "the deadline counts from the last acknowledged renewal: 4 s of 4.5 s");
        assertEquals(List.of(), events.starting("lost"));
    }

    @Test
    void aLeaseWhoseSlotDocumentIsGoneEndsAsVanished() throws Exception {
        protocol.init(1);
        SlotProtocol a = owner(protocol.store(), 1);
        a.poll();
        protocol.slots().deleteOne(Filters.eq("_id", "slot-0"));

        a.renewAll();

        assertEquals(List.of("lost slot-0@1 VANISHED"), events.starting("lost"));
        assertEquals(List.of(), a.leases());
    }

    @Test
    void onlyARaisedEpochWithoutOwnerIsAnOperatorsRevocation() throws Exception {
        protocol.init(2);
        SlotProtocol a = owner(protocol.store(), 2);
        assertEquals(2, a.poll());
        String instance = a.config().instance();
        // slot-0: an operator's forced release, which raises the epoch. slot-1: released at the lease's own
        // epoch (as only a process with this instance could): nobody revoked it, it was taken from under this lease.
        assertTrue(new SlotTable(protocol.db()).forceRelease("slot-0").isPresent());
        assertTrue(protocol.store().release("slot-1", 1, instance));

        a.renewAll();

        assertEquals(
                List.of("lost slot-0@1 REVOKED", "lost slot-1@1 TAKEN"),
                events.starting("lost").stream().sorted().toList());
    }

    @Test
    void thePollTellsTheListenerHowEachHeldSlotLooksAtItsLeasesEpochOnly() throws Exception {
        protocol.init(2);
        SlotProtocol a = owner(protocol.store(), 1);
        assertEquals(1, a.poll());
        String held = a.leases().getFirst().slotId();
        events.lines.clear();

        a.poll();
        assertEquals(
                List.of("observed " + held + "@1 at epoch 1"),
                events.starting("observed"),
                "the other slot is not held");

        // Taken at a higher epoch under this node's feet: what the poll reads is not this lease's slot.
        protocol.slots()
                .updateOne(
                        Filters.eq("_id", held),
                        Updates.combine(Updates.set("instance", "other"), Updates.inc("epoch", 1L)));
        events.lines.clear();
        a.poll();
        assertEquals(List.of(), events.starting("observed"));
    }

    @Test
    void anEndedLeaseIsNoLongerHeldNorObserved() throws Exception {
        protocol.init(1);
        SlotProtocol a = owner(protocol.store(), 1);
        assertEquals(1, a.poll());
        List<List<Lease>> heldDuringLoss = new CopyOnWriteArrayList<>();
        events.onLost = lease -> heldDuringLoss.add(a.leases());

        clock.tick(TIMING.lease());
        a.checkFences();

        assertEquals(List.of(List.of()), heldDuringLoss, "ended before the listener hears of it");
        assertEquals(List.of(), a.leases());
        assertEquals(io.standby.slot.NodeState.STANDBY, a.state());
        events.lines.clear();
        a.stopClaiming();
        a.poll();
        assertEquals(
                List.of(), events.lines, "the fenced lease's slot, still this node's in the database, is not observed");
    }

    @Test
    void aStandbysFenceCheckAndRenewalsDoNothing() throws Exception {
        protocol.init(1);
        FailingSlotStore failing = new FailingSlotStore(protocol.store()).fail(FailingSlotStore.Call.RENEW);
        SlotProtocol a = owner(failing, 1);
        a.stopClaiming();
        a.poll();

        a.renewAll();
        a.checkFences();

        assertEquals(List.of(), events.lines);
        assertEquals(io.standby.slot.NodeState.STANDBY, a.state());
        assertEquals(Optional.empty(), a.checkIdentity(), "without fast failover an identity is never judged lost");
    }
}
