package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.NodeId;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a member's poll reads, collection by collection, as the server sees the commands: the registry only when a plan
 * is likely (the last read showed a slot this node does not hold and may claim), and a registry read no older than a
 * poll serves a slot that became claimable without warning, with no second read of the slots.
 */
class SlotReadsPollTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    private SlotProtocol member(StandbyDatabase on, NodeId id, int maxSlots) {
        return protocol.node(id)
                .maxSlots(maxSlots)
                .on(new MongoSlotStore(on))
                .member(new MongoNodeRegistry(on.database()))
                .build();
    }

    @Test
    void aNodeWithRoomThatReadsOnlyItsOwnSlotsReadsNoRegistry() throws Exception {
        protocol.init(1);
        SlotProtocol a = member(protocol.watched(), A, 2);
        assertEquals(1, a.poll());
        for (int i = 0; i < 3; i++) {
            clock.tick(TIMING.poll());
            a.poll();
            a.renewAll();
        }
        protocol.reads().clear();

        clock.tick(TIMING.poll());
        assertEquals(0, a.poll());
        clock.tick(TIMING.poll());
        assertEquals(0, a.poll());

        assertEquals(
                List.of("slots", "slots"),
                protocol.reads(),
                "its own live slot is read at every poll, but is nothing to plan: no registry read");
    }

    @Test
    void aRegistryReadWithinAPollServesASlotReleasedWithoutWarningWithOneReadOfTheSlots() throws Exception {
        protocol.init(2);
        SlotProtocol a = member(protocol.db(), A, 1);
        SlotProtocol b = member(protocol.watched(), B, 2);
        assertEquals(1, a.poll());
        assertEquals(1, b.poll(), "the other slot");
        clock.tick(TIMING.poll());
        // A's registry document now lists its slot: the plans give A no more room.
        assertEquals(0, a.poll());
        // The last read showed a claimable slot (since won): the registry, then the slots, which show nothing to claim.
        assertEquals(0, b.poll());
        protocol.reads().clear();
        a.releaseAll();

        clock.tick(TIMING.poll().dividedBy(2));
        assertEquals(1, b.poll(), "the released slot, claimed at once");

        assertEquals(
                List.of("slots"),
                protocol.reads(),
                "the registry was read half a poll ago: neither it nor the slots again");
    }
}
