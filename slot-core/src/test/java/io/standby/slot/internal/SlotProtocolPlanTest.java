package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a member plans its claims with: itself, even when the registry does not list it (the registry only helps), and
 * its own room, which the slots a twin holds under its ip:port on another host do not take. A slot the plan gives to
 * this node is claimed at once; any other only after a head start.
 */
class SlotProtocolPlanTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    private SlotProtocol member(NodeRegistry registry, String instance) {
        return protocol.node(A).instance(instance).member(registry).build();
    }

    @Test
    void aNodeThatCannotWriteItselfIntoTheRegistryStillPlansItselfInAndClaimsAtOnce() throws Exception {
        protocol.init(1);
        MongoNodeRegistry registry = protocol.registry();
        NodeRegistry unwritable = refusingWrites(registry);
        SlotProtocol a = member(unwritable, NodeConfig.newInstanceId());

        assertEquals(1, a.poll(), "the only node there is: no head start to wait");
        assertEquals(List.of(), registry.readAll());
    }

    @Test
    void aNodeMissingFromARegistryThatListsOthersStillPlansItselfInAndClaimsItsShareAtOnce() throws Exception {
        protocol.init(2);
        MongoNodeRegistry registry = protocol.registry();
        // Another live node, room for one: with this node planned in too, each gets one slot at once.
        protocol.registerStandby(new NodeId("10.0.0.2", 7700), "1-other@elsewhere", Duration.ofSeconds(60));
        SlotProtocol a = member(refusingWrites(registry), NodeConfig.newInstanceId());

        assertEquals(1, a.poll(), "its share of the plan at once, not after a head start");
        assertEquals(1, registry.readAll().size(), "the registry still lists the other node only");
    }

    /**
     * The registry, except that this node's own writes are refused, as when the nodes collection is read-only to it.
     */
    private static NodeRegistry refusingWrites(MongoNodeRegistry registry) {
        return new ForwardingNodeRegistry(registry) {
            @Override
            public boolean write(NodeRecord node, Write write) {
                throw new IllegalStateException("not authorized on nodes");
            }
        };
    }

    @Test
    void theSlotsATwinHoldsUnderThisAddressOnAnotherHostTakeNoneOfThisNodesRoom() throws Exception {
        protocol.init(2);
        // 127.0.0.1:7001 on host a holds slot-0; the same address on host b, room for one, plans slot-1.
        SlotProtocol hostA = member(NodeRegistry.NONE, "1-aaaa@host-a:1111:1");
        assertEquals(1, hostA.poll());
        SlotProtocol hostB = member(protocol.registry(), "2-bbbb@host-b:2222:1");

        assertEquals(1, hostB.poll(), "planned for itself and claimed at once, not after a head start");
        assertEquals(
                "2-bbbb@host-b:2222:1",
                protocol.store().readAll().stream()
                        .filter(s -> !s.id().equals(hostA.leases().getFirst().slotId()))
                        .findFirst()
                        .orElseThrow()
                        .instance());
    }

    /** Registers a live node that the plan gives slot-0 beside A, and slot-0 alone; it never polls. */
    private NodeId registeredAheadForSlot0(String instance) {
        NodeId other = protocol.otherPlanned(A, 1, Set.of("slot-0")::equals);
        protocol.registerStandby(other, instance, Duration.ofSeconds(60));
        return other;
    }

    @Test
    void aHeadStartCountsFromWhenThisNodeHasRoomNotFromWhenTheSlotBecameClaimable() throws Exception {
        protocol.init(2);
        // A node that registered and died, which the plan gives slot-0 while this node gets slot-1.
        NodeId ghost = registeredAheadForSlot0("1-dead@elsewhere");
        SlotProtocol a = member(protocol.registry(), NodeConfig.newInstanceId());
        assertEquals(1, a.poll());
        assertEquals("slot-1", a.leases().getFirst().slotId(), "its planned slot, at once");
        clock.tick(TIMING.poll());
        assertEquals(0, a.poll(), "full: slot-0 stays the ghost's to take");

        // An operator releases this node's slot: it has room again, long after slot-0 became claimable.
        assertEquals(true, new SlotTable(protocol.db()).forceRelease("slot-1").isPresent());
        a.renewAll();
        clock.tick(TIMING.poll());
        assertEquals(
                0, a.poll(), "the planned node gets its head start from now, as if the slot had just become claimable");
        clock.tick(TIMING.poll().dividedBy(2));
        assertEquals(1, a.poll());
        assertEquals(A, protocol.store().read("slot-0").orElseThrow().owner());
    }

    @Test
    void aHeadStartStartsAgainEachTimeASlotBecomesClaimableAgain() throws Exception {
        protocol.init(1);
        NodeId ghost = registeredAheadForSlot0("1-g@elsewhere");
        SlotProtocol a = member(protocol.registry(), NodeConfig.newInstanceId());
        assertEquals(0, a.poll(), "slot-0 is the other node's to take first");

        // The other node takes it within its head start, then dies: its lease runs out.
        assertEquals(
                true,
                protocol.store()
                        .claim(
                                protocol.store().read("slot-0").orElseThrow(),
                                new SlotStore.Ownership(ghost, "1-g@elsewhere", TIMING.lease())));
        clock.tick(TIMING.poll());
        assertEquals(0, a.poll());
        protocol.heartbeatAgo("slot-0", Duration.ofSeconds(60));
        assertEquals(0, a.poll());
        clock.tick(TIMING.lease());

        assertEquals(0, a.poll(), "claimable again: the planned node gets a new head start");
        clock.tick(TIMING.poll().dividedBy(2));
        assertEquals(1, a.poll());
    }
}
