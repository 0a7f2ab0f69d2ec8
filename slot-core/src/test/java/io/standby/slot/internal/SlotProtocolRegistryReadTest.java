package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.NodeId;
import io.standby.slot.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When a member reads the registry: right before the slots whenever it may claim (a plan is only stable if the slot
 * table it uses is no older than the registry), and not at all while it cannot claim, being full or on its way out. A
 * slot that became claimable without warning (a graceful release) is planned from a registry read after it, then the
 * slots again. The reads are seen as the server sees them.
 */
class SlotProtocolRegistryReadTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    /** A member whose reads are recorded. */
    private SlotProtocol watchedMember(NodeId id, int maxSlots) {
        return protocol.node(id)
                .maxSlots(maxSlots)
                .on(new MongoSlotStore(protocol.watched()))
                .member(new MongoNodeRegistry(protocol.watched().database()))
                .build();
    }

    private SlotProtocol member(NodeId id, int maxSlots) {
        return protocol.member(id).maxSlots(maxSlots).build();
    }

    /** Past the registry writes that follow a start and a claim, so that a poll writes nothing. */
    private void quiet(SlotProtocol... nodes) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            clock.tick(TIMING.poll());
            for (SlotProtocol node : nodes) {
                node.poll();
            }
        }
        protocol.reads().clear();
    }

    private void assertTheNextPollClaimsNothingAndReadsOnlyTheSlots(SlotProtocol node) throws InterruptedException {
        clock.tick(TIMING.poll());
        assertEquals(0, node.poll());

        assertEquals(List.of("slots"), protocol.reads());
    }

    @Test
    void aFullNodeReadsOnlyTheSlotsThoughOneIsClaimable() throws Exception {
        protocol.init(2);
        SlotProtocol a = watchedMember(A, 1);
        assertEquals(1, a.poll());
        quiet(a);
        assertEquals(
                1, protocol.store().readAll().stream().filter(s -> s.expired()).count(), "the other slot is free");

        assertTheNextPollClaimsNothingAndReadsOnlyTheSlots(a);
    }

    @Test
    void aNodeThatStoppedClaimingReadsOnlyTheSlots() throws Exception {
        protocol.init(1);
        SlotProtocol a = watchedMember(A, 1);
        a.stopClaiming();
        quiet(a);

        assertTheNextPollClaimsNothingAndReadsOnlyTheSlots(a);
    }

    @Test
    void aSlotReleasedWithoutWarningIsPlannedFromARegistryReadAfterIt() throws Exception {
        protocol.init(1);
        SlotProtocol b = watchedMember(B, 1);
        SlotProtocol a = member(A, 1);
        assertEquals(1, a.poll());
        quiet(a, b);

        clock.tick(TIMING.poll());
        b.poll();
        assertEquals(List.of("slots"), protocol.reads(), "nothing claimable: the slots alone");
        a.releaseAll();
        protocol.reads().clear();

        clock.tick(TIMING.poll());
        assertEquals(1, b.poll(), "a released slot: claimed at the next poll");
        assertEquals(
                List.of("slots", "nodes", "slots"),
                protocol.reads(),
                "claimable without warning: the registry, then the slots again, before the plan");
    }
}
