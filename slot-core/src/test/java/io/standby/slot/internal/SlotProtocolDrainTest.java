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
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Whose drain a drain request is: the instance it names, and only a node that takes part in a membership (without a
 * registry no room can be judged). A drained node is one that was asked to drain and has seen its last slot taken; a
 * node never asked is never drained, however few slots it holds.
 */
class SlotProtocolDrainTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    private SlotProtocol member(NodeId id, int maxSlots, String instance, boolean bound) {
        return protocol.member(id)
                .maxSlots(maxSlots)
                .instance(instance)
                .bound(bound)
                .build();
    }

    private SlotProtocol member(NodeId id, int maxSlots) {
        return member(id, maxSlots, NodeConfig.newInstanceId(), false);
    }

    /** B, room for one, beside {@code owner}: the owner claims the one slot, then B stands by. */
    private SlotProtocol standbyBeside(SlotProtocol owner) throws InterruptedException {
        SlotProtocol b = member(B, 1);
        assertEquals(1, owner.poll());
        assertEquals(0, b.poll());
        return b;
    }

    @Test
    void aNodeNeverAskedToDrainIsNeverDrained() throws Exception {
        protocol.init(1);
        SlotProtocol a = member(A, 1);
        SlotProtocol b = standbyBeside(a);

        assertFalse(b.draining());
        assertFalse(b.drained(), "a standby that holds nothing may not stop for it");
        assertFalse(a.drained());
        assertEquals(NodeState.STANDBY, b.state());
    }

    @Test
    void aDrainedNodeHasSeenItsLastSlotTakenBeforeItMayStop() throws Exception {
        protocol.init(1);
        SlotProtocol a = member(A, 1);
        SlotProtocol b = standbyBeside(a);
        new NodeTable(protocol.db()).drain(A);

        a.poll();
        assertTrue(protocol.slot("slot-0").released(), "handed over");
        assertEquals(List.of(), a.leases());
        assertFalse(a.drained(), "nobody has taken it yet: stopping now could leave it unserved unnoticed");

        assertEquals(1, b.poll());
        a.poll();
        assertTrue(a.drained());
        assertEquals(NodeState.DRAINING, a.state());
    }

    @Test
    void aDrainTakesItsNodeOutOfThePlansBeforeItsFirstRelease() throws Exception {
        protocol.init(1);
        MongoNodeRegistry registry = protocol.registry();
        List<NodeState> registeredWhenReleasing = new ArrayList<>();
        SlotListener listener = new SlotListener() {
            @Override
            public void releasing(Lease lease) {
                registry.readAll().stream()
                        .filter(node -> node.id().equals(A))
                        .forEach(node -> registeredWhenReleasing.add(node.state()));
            }
        };
        SlotProtocol a = protocol.node(A).listener(listener).member(registry).build();
        SlotProtocol b = standbyBeside(a);
        // Asked on its slot only, so that the poll that sees the request is the one that releases.
        assertEquals(
                1, protocol.store().markDrain(A, SlotView.Drain.asked(a.config().instance())));

        a.poll();

        assertTrue(protocol.slot("slot-0").released(), "handed over in the poll that saw the request");
        assertEquals(
                List.of(NodeState.DRAINING),
                registeredWhenReleasing,
                "a standby planning meanwhile must not count the draining node as a place for the slot");
    }

    @Test
    void aDrainingNodeClaimsNothingEvenWhereItHasRoom() throws Exception {
        protocol.init(1);
        SlotProtocol a = member(A, 2);
        SlotProtocol b = standbyBeside(a);
        new NodeTable(protocol.db()).drain(A);
        a.poll();
        protocol.init(2);

        clock.tick(TIMING.poll());
        assertEquals(0, a.poll());
        assertTrue(protocol.slot("slot-1").released(), "the new slot is left for others");
    }

    @Test
    void aDrainAskedOfTheProcessBeforeARestartIsNotTheRestartedOnes() throws Exception {
        protocol.init(1);
        SlotProtocol before = member(A, 1, NodeConfig.newInstanceId(), true);
        SlotProtocol standby = standbyBeside(before);
        assertEquals(
                1,
                protocol.store()
                        .markDrain(A, SlotView.Drain.forced(before.config().instance())));

        // The process dies before it sees the request; its restart binds the address and takes its slot back.
        SlotProtocol after = member(A, 1, NodeConfig.newInstanceId(), true);
        after.join();
        assertEquals(1, after.poll());
        assertEquals(after.config().instance(), protocol.slot("slot-0").instance());
        clock.tick(TIMING.poll());
        after.poll();

        assertFalse(after.draining(), "the request named the earlier instance");
        assertEquals(A, protocol.slot("slot-0").owner());
    }

    @Test
    void aNodeWithoutAMembershipIgnoresADrainRequestOnItsSlots() throws Exception {
        protocol.init(1);
        SlotProtocol a = protocol.node(A).build();
        assertEquals(1, a.poll());
        protocol.slots()
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("drain", new Document("instance", a.config().instance()).append("force", true)));

        a.poll();

        assertFalse(a.draining(), "no registry, no room to judge: the request is not for it");
        assertEquals(A, protocol.slot("slot-0").owner());
    }

    @Test
    void aStandbyAskedToDrainSeesItAtItsNextRegistryWriteAndIsDrainedAtOnce() throws Exception {
        protocol.init(1);
        SlotProtocol a = member(A, 1);
        SlotProtocol b = standbyBeside(a);
        new NodeTable(protocol.db()).drain(B);

        clock.tick(TIMING.heartbeat().multipliedBy(SlotProtocol.REGISTRY_WRITE_HEARTBEATS));
        b.poll();

        assertTrue(b.draining());
        assertTrue(b.drained(), "nothing to hand over: it may stop");
        assertEquals(NodeState.DRAINING, b.state());
        protocol.init(2);
        clock.tick(TIMING.poll());
        assertEquals(0, b.poll(), "and claims nothing meanwhile");
    }

    @Test
    void aDrainThatCannotReadTheSlotsAgainToJudgeRoomKeepsServingItsSlot() throws Exception {
        protocol.init(1);
        // The poll's read succeeds; the second read, the one that counts every slot the registry's nodes hold, fails.
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        FailingSlotStore everySecondReadFails = new FailingSlotStore(protocol.store()) {
            @Override
            public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
                if (reads.incrementAndGet() % 2 == 0) {
                    throw new IllegalStateException("connection lost");
                }
                return super.poll(me, lateBefore, free);
            }
        };
        SlotProtocol a = protocol.member(A).on(everySecondReadFails).build();
        SlotProtocol b = standbyBeside(a);
        new NodeTable(protocol.db()).drain(A);
        reads.set(0);

        clock.tick(TIMING.poll());
        a.poll();

        assertTrue(a.draining());
        assertEquals(A, protocol.slot("slot-0").owner(), "room unknown: no room, as far as this node can tell");
        assertFalse(a.drained());
    }
}
