package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The steps of a drain, on recorded slot documents: a forced drain hands a slot over although the registry shows every
 * other node full, an unforced one keeps it; and the next slot goes only once the last one is seen owned elsewhere, by
 * the poll's read or by one read of it, or after two polls.
 */
class DrainStepTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    private SlotProtocol member(SlotStore on, NodeId id, int maxSlots) {
        return protocol.member(id).maxSlots(maxSlots).on(on).build();
    }

    /** A and B hold one slot each, with room for one, and their registry documents say so. */
    private List<SlotProtocol> twoFullNodes() throws Exception {
        protocol.init(2);
        SlotProtocol a = member(protocol.store(), A, 1);
        SlotProtocol b = member(protocol.store(), B, 1);
        assertEquals(1, a.poll());
        clock.tick(TIMING.poll());
        assertEquals(1, b.poll());
        clock.tick(TIMING.poll());
        a.poll();
        b.poll();
        return List.of(a, b);
    }

    private String heldBy(NodeId node) {
        return protocol.store().readAll().stream()
                .filter(s -> node.equals(s.owner()))
                .map(SlotView::id)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aForcedDrainHandsItsSlotOverThoughTheRegistryShowsEveryOtherNodeFull() throws Exception {
        SlotProtocol b = twoFullNodes().get(1);
        String bSlot = heldBy(B);

        new NodeTable(protocol.db()).forceDrain(B);
        clock.tick(TIMING.poll());
        b.poll();

        assertTrue(b.draining());
        assertNull(protocol.slot(bSlot).owner(), "forced: released with nowhere to go");
        assertEquals(A, protocol.slot(heldBy(A)).owner());
    }

    @Test
    void anUnforcedDrainKeepsServingItsSlotWhileTheRegistryShowsEveryOtherNodeFull() throws Exception {
        SlotProtocol b = twoFullNodes().get(1);
        String bSlot = heldBy(B);

        // A request written while A still had room, say: the slots carry it, unforced.
        assertEquals(
                1, protocol.store().markDrain(B, SlotView.Drain.asked(b.config().instance())));
        clock.tick(TIMING.poll());
        b.poll();

        assertTrue(b.draining());
        assertEquals(B, protocol.slot(bSlot).owner(), "no room elsewhere: B keeps serving it");
    }

    /** A drain of A, room two, with B beside it, room two: {@code first} handed over, {@code second} still A's. */
    private record FirstHandover(
            FailingSlotStore aStore, SlotProtocol a, SlotProtocol b, String first, String second) {}

    private FirstHandover firstHandedOver() throws Exception {
        protocol.init(2);
        FailingSlotStore aStore = new FailingSlotStore(protocol.store());
        SlotProtocol a = member(aStore, A, 2);
        SlotProtocol b = member(protocol.store(), B, 2);
        assertEquals(2, a.poll());
        clock.tick(TIMING.poll());
        a.poll();
        assertEquals(0, b.poll());
        new NodeTable(protocol.db()).drain(A);

        clock.tick(TIMING.poll());
        a.poll();
        String first = protocol.store().readAll().stream()
                .filter(SlotView::released)
                .map(SlotView::id)
                .findFirst()
                .orElseThrow();
        String second = heldBy(A);
        return new FirstHandover(aStore, a, b, first, second);
    }

    @Test
    void aHandoverThatCannotBeReadWaitsTwoPollsBeforeTheNextSlotGoes() throws Exception {
        FirstHandover h = firstHandedOver();
        assertEquals(1, h.b().poll(), "B takes the slot handed over");
        assertEquals(B, protocol.slot(h.first()).owner());
        // A's poll does not read B's live slot; the one read of it that would show it taken fails.
        h.aStore().fail(FailingSlotStore.Call.READ);

        clock.tick(TIMING.poll());
        h.a().poll();
        assertEquals(A, protocol.slot(h.second()).owner(), "the handover is not confirmed: A keeps its next slot");

        clock.tick(TIMING.poll());
        h.a().poll();
        assertNull(protocol.slot(h.second()).owner(), "two polls after the first handover, the next one goes anyway");
    }

    @Test
    void aHandoverThePollShowsOwnedElsewhereNeedsNoSecondRead() throws Exception {
        FirstHandover h = firstHandedOver();
        assertEquals(1, h.b().poll());
        // B's heartbeat on it is late (not expired): A's poll reads it, owned by B. A single read would fail.
        protocol.heartbeatAgo(h.first(), Duration.ofSeconds(4));
        h.aStore().fail(FailingSlotStore.Call.READ);

        clock.tick(TIMING.poll());
        h.a().poll();

        assertEquals(B, protocol.slot(h.first()).owner());
        assertNull(
                protocol.slot(h.second()).owner(), "the poll showed the first slot taken: the next one goes at once");
    }
}
