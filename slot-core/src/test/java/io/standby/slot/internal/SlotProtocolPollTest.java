package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.Lease;
import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A poll that reads the owner documents and only the slots that may concern the standby: its size does not grow with
 * the slots live owners hold, and a dead owner's slot is still taken at its lease, the own-clock wait counted from the
 * owner document's last beat, not from the late read of the slot. Server ages are set up by writing the documents'
 * times, never by sleeping; the standby's own clock is a hand clock.
 */
class SlotProtocolPollTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();
    /** How many slots each poll of the standby read. */
    private final List<Integer> standbyReads = new CopyOnWriteArrayList<>();

    private SlotProtocol node(NodeId id, int maxSlots, SlotStore on) {
        return protocol.node(id).maxSlots(maxSlots).on(on).build();
    }

    /** A standby whose every poll's size is recorded. */
    private SlotProtocol standby() {
        return node(B, 100, new FailingSlotStore(protocol.store()) {
            @Override
            public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
                Poll poll = super.poll(me, lateBefore, free);
                standbyReads.add(poll.slots().size());
                return poll;
            }
        });
    }

    /**
     * The owner went quiet {@code ago}: its slots' heartbeats and its document's last beat are that old by the server's
     * clock.
     */
    private void ownerQuietFor(Duration ago, String... slotIds) {
        Date then = Date.from(Instant.now().minus(ago));
        protocol.slots().updateMany(Filters.in("_id", List.of(slotIds)), Updates.set("time", then));
        protocol.owners().updateMany(Filters.gte("_id", SlotFields.OWNER_PREFIX), Updates.set(SlotFields.AT, then));
    }

    /** A owns all of {@code slots} new slots and has renewed them once. */
    private SlotProtocol ownerOfAll(int slots) throws InterruptedException {
        protocol.init(slots);
        SlotProtocol owner = node(A, slots, protocol.store());
        assertEquals(slots, owner.poll());
        owner.renewAll();
        return owner;
    }

    @Test
    void aStandbysPollOfAnIdleWorldReadsNoSlotOfALiveOwnerHoweverManyThereAre() throws Exception {
        SlotProtocol owner = ownerOfAll(50);
        SlotProtocol standby = standby();

        for (int i = 0; i < 5; i++) {
            assertEquals(0, standby.poll());
            clock.tick(TIMING.poll());
            owner.renewAll();
        }

        assertEquals(
                List.of(0, 0, 0, 0, 0), standbyReads, "no poll reads a slot of a live owner, the first one included");
        assertEquals(50, owner.leases().size());
    }

    @Test
    void aDeadOwnersSlotIsTakenAtItsLeaseByItsDocumentThoughTheStandbyReadItOnlyOnceItWasLate() throws Exception {
        SlotProtocol owner = ownerOfAll(1);
        SlotProtocol standby = standby();
        standby.poll();
        // The owner's last renewal: the standby sees the document at that beat from now on.
        clock.tick(TIMING.poll());
        owner.renewAll();
        assertEquals(0, standby.poll());
        standbyReads.clear();

        // The owner dies. The standby's next polls do not read the slot until it is late.
        clock.tick(TIMING.poll());
        assertEquals(0, standby.poll());
        ownerQuietFor(TIMING.lease().plusSeconds(1), "slot-0");
        clock.tick(TIMING.lease().minus(TIMING.poll()).minusMillis(1));
        assertEquals(
                0,
                standby.poll(),
                "expired by the server's clock, but the document has not stood still for a lease on the standby's");
        clock.tick(Duration.ofMillis(1));

        assertEquals(1, standby.poll(), "a lease after the document's last beat, on the standby's own clock");
        assertEquals(List.of(0, 1, 1), standbyReads, "the slot was first read when late");
        assertEquals(B, protocol.slot("slot-0").owner());
        assertEquals(2, protocol.slot("slot-0").epoch());
    }

    @Test
    void aSlotWhoseOwnerWritesNoDocumentIsWatchedItselfForALeaseFromItsFirstRead() throws Exception {
        SlotProtocol owner = ownerOfAll(1);
        // As a node of an earlier version: its slot renewed, no owner document.
        protocol.store()
                .removeOwner(OwnerDocRules.ownerId(A, protocol.slot("slot-0").instance()));
        SlotProtocol standby = standby();
        standby.poll();
        standbyReads.clear();
        clock.tick(TIMING.poll());
        assertEquals(0, standby.poll());
        ownerQuietFor(TIMING.lease().plusSeconds(1), "slot-0");
        clock.tick(TIMING.lease());

        assertEquals(0, standby.poll(), "the first read of this version: its own-clock wait starts now");
        clock.tick(TIMING.lease().minusMillis(1));
        assertEquals(0, standby.poll());
        clock.tick(Duration.ofMillis(1));
        assertEquals(1, standby.poll());
        assertEquals(B, protocol.slot("slot-0").owner());
    }

    /** The slots held by a process of another node, whose owner document the standby's first poll sees. */
    private static final SlotStore.Ownership EARLIER =
            new SlotStore.Ownership(new NodeId("127.0.0.1", 7009), "z", TIMING.lease());

    /**
     * The standby's first poll while an earlier owner holds the slots (it reads that owner's document, and so learns
     * the server's time); that owner then lets them go.
     */
    private SlotProtocol standbyAfterAnEarlierOwner(String... slotIds) throws InterruptedException {
        for (String id : slotIds) {
            assertTrue(protocol.store().claim(protocol.slot(id), EARLIER));
        }
        protocol.store().beat(EARLIER.withBeat(1));
        SlotProtocol standby = standby();
        assertEquals(0, standby.poll());
        for (String id : slotIds) {
            assertTrue(protocol.store().release(id, protocol.slot(id).epoch(), "z"));
        }
        standbyReads.clear();
        return standby;
    }

    @Test
    void aSlotWonWithTheDocumentsBeatIsTakenByTheDocumentWithoutARenewalSince() throws Exception {
        protocol.init(1);
        SlotProtocol standby = standbyAfterAnEarlierOwner("slot-0");
        // The owner wins the slot and dies before its first renewal: its document was raised just before the claim.
        SlotProtocol owner = node(A, 1, protocol.store());
        assertEquals(1, owner.poll());
        assertEquals(0, standby.poll());
        ownerQuietFor(TIMING.lease().plusSeconds(1), "slot-0");
        clock.tick(TIMING.lease().minusMillis(1));
        assertEquals(0, standby.poll());
        clock.tick(Duration.ofMillis(1));

        assertEquals(1, standby.poll(), "the claim carried the document's beat, and the slot was first read late");
        assertEquals(List.of(0, 1, 1), standbyReads);
        assertEquals(B, protocol.slot("slot-0").owner());
    }

    @Test
    void aSlotWonAtABeatNoDocumentShowsIsNotTakenByTheDocumentButByItsOwnWait() throws Exception {
        protocol.init(2);
        SlotProtocol standby = standbyAfterAnEarlierOwner("slot-0", "slot-1");
        // The document's write before the second claim fails: that claim carries a beat of its own.
        java.util.concurrent.atomic.AtomicBoolean documentFails = new java.util.concurrent.atomic.AtomicBoolean();
        SlotProtocol owner = node(A, 2, new FailingSlotStore(protocol.store()) {
            @Override
            public void beat(Ownership owner) {
                if (documentFails.get()) {
                    throw new IllegalStateException("connection lost");
                }
                super.beat(owner);
            }
        });
        protocol.slots().updateOne(Filters.eq("_id", "slot-1"), Updates.set("ip", "10.9.9.9"));
        assertEquals(1, owner.poll());
        owner.renewAll();
        protocol.slots().updateOne(Filters.eq("_id", "slot-1"), Updates.set("ip", null));
        clock.tick(TIMING.poll());
        documentFails.set(true);
        assertEquals(1, owner.poll());
        long documentBeat = protocol.store()
                .poll(A, Instant.EPOCH, FreeShare.ALL)
                .beats()
                .get(OwnerDocRules.ownerId(A, owner.config().instance()));
        assertTrue(protocol.slot("slot-1").beat() > documentBeat, "a beat of its own");
        assertEquals(0, standby.poll());
        ownerQuietFor(TIMING.lease().plusSeconds(1), "slot-0", "slot-1");
        clock.tick(TIMING.lease());

        assertEquals(1, standby.poll(), "slot-0, at the document's beat");
        assertEquals(B, protocol.slot("slot-0").owner());
        assertEquals(A, protocol.slot("slot-1").owner(), "slot-1 carries a beat the document never showed");
        clock.tick(TIMING.lease().minusMillis(1));
        assertEquals(0, standby.poll());
        clock.tick(Duration.ofMillis(1));
        assertEquals(1, standby.poll(), "slot-1 itself watched for a lease");
        assertEquals(B, protocol.slot("slot-1").owner());
    }

    @Test
    void aClaimedLeaseCountsFromTheOwnerDocumentsWriteBeforeTheClaimNotFromTheClaim() throws Exception {
        protocol.init(1);
        Duration answer = Duration.ofMillis(300);
        SlotProtocol owner = node(A, 1, new FailingSlotStore(protocol.store()) {
            @Override
            public void beat(Ownership owner) {
                super.beat(owner);
                // The document's write is answered 300 ms after it was sent; the claim goes out after that.
                clock.tick(answer);
            }
        });
        assertEquals(1, owner.poll());
        Lease lease = owner.leases().getFirst();
        Duration valid = TIMING.lease().minus(TIMING.fenceMargin());

        clock.tick(valid.minus(answer).minusMillis(1));
        assertTrue(lease.isValid());
        clock.tick(Duration.ofMillis(1));
        assertFalse(
                lease.isValid(),
                "a standby may count from the document's beat, written 300 ms before the claim was sent");
    }

    @Test
    void aGracefulStopRemovesTheOwnersDocumentAndOthersSweepOneThatStoodStillForLong() throws Exception {
        protocol.init(2);
        NodeId c = new NodeId("127.0.0.1", 7003);
        SlotProtocol first = node(A, 1, protocol.store());
        SlotProtocol second = node(c, 1, protocol.store());
        assertEquals(1, first.poll());
        assertEquals(1, second.poll());
        first.renewAll();
        second.renewAll();
        String firstDoc = OwnerDocRules.ownerId(A, first.config().instance());
        String secondDoc = OwnerDocRules.ownerId(c, second.config().instance());
        assertEquals(List.of(firstDoc, secondDoc), ownerDocs());

        first.releaseAll();
        first.leave();
        assertEquals(List.of(secondDoc), ownerDocs(), "the one that stopped removed its own");

        // The second dies without a stop; a standby removes its document once it stood still for long.
        SlotProtocol standby = standby();
        standby.poll();
        clock.tick(SlotReads.SWEEP_AFTER.minusMillis(1));
        standby.poll();
        assertTrue(ownerDocs().contains(secondDoc));
        clock.tick(Duration.ofMillis(1));
        standby.poll();
        assertFalse(ownerDocs().contains(secondDoc));
    }

    private List<String> ownerDocs() {
        return protocol.store().poll(B, Instant.EPOCH, FreeShare.ALL).owners().stream()
                .map(o -> OwnerDocRules.ownerId(o.node(), o.instance()))
                .sorted()
                .toList();
    }
}
