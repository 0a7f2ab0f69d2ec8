package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.NodeState;
import io.standby.slot.NodeView;
import io.standby.slot.SlotTiming;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Joining the cluster: a node with a membership writes itself into the registry before its first claim and lets the
 * nodes starting with it register too, for half a poll but never more than 250 ms, once; a node without one waits for
 * nobody. A join that cannot read the slots goes on.
 */
class SlotProtocolJoinTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private MongoNodeRegistry registry;
    private final ManualClock clock = protocol.clock();
    private final List<Duration> sleeps = protocol.sleeps();

    @BeforeEach
    void setUp() {
        registry = protocol.registry();
        protocol.init(1);
    }

    private SlotProtocol member(SlotStore on, SlotTiming timing) {
        return protocol.node(A).timing(timing).on(on).member(registry).build();
    }

    private static SlotTiming poll(Duration poll) {
        return SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(5), poll);
    }

    @Test
    void aJoiningMemberIsRegisteredBeforeItsFirstPollAndLetsOthersRegisterForAtMost250Ms() throws Exception {
        SlotProtocol a = member(protocol.store(), poll(Duration.ofSeconds(1)));

        a.join();

        List<NodeView> registered = registry.readAll();
        assertEquals(List.of(A), registered.stream().map(NodeView::id).toList(), "registered by the join itself");
        assertEquals(NodeState.STANDBY, registered.getFirst().state());
        assertEquals(List.of(Duration.ofMillis(250)), sleeps, "half the poll is 500 ms: capped");

        assertEquals(1, a.poll());
        assertEquals(List.of(Duration.ofMillis(250)), sleeps, "once per node, not again at its first poll");
    }

    @Test
    void aMemberWithAShortPollWaitsHalfOfIt() throws Exception {
        SlotProtocol a = member(protocol.store(), poll(Duration.ofMillis(300)));

        assertEquals(1, a.poll());

        assertEquals(List.of(Duration.ofMillis(150)), sleeps);
    }

    @Test
    void aJoinThatCannotReadTheSlotsStillRegistersTheNode() throws Exception {
        FailingSlotStore failing = new FailingSlotStore(protocol.store()).fail(FailingSlotStore.Call.READ_HELD_BY);
        SlotProtocol a = member(failing, poll(Duration.ofSeconds(1)));

        a.join();

        assertEquals(List.of(A), registry.readAll().stream().map(NodeView::id).toList());
        failing.heal();
        assertEquals(1, a.poll());
    }

    @Test
    void aJoinGoesOnWhenTheLeaseHeldUnderItsIdentityElsewhereHasRunOut() throws Exception {
        SlotProtocol hostA = protocol.node(A)
                .timing(poll(Duration.ofSeconds(1)))
                .instance("1-aaaa@host-a:1111:1")
                .build();
        assertEquals(1, hostA.poll());
        SlotProtocol hostB = protocol.node(A)
                .timing(poll(Duration.ofSeconds(1)))
                .instance("2-bbbb@host-b:2222:1")
                .build();
        assertThrows(IllegalStateException.class, hostB::join, "a live lease of another host under this identity");

        // Host a's process died long ago: its lease ran out by the server's clock.
        protocol.db()
                .database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(60))));

        hostB.join();
        assertEquals(0, hostB.poll());
        clock.tick(Duration.ofSeconds(5));
        assertEquals(1, hostB.poll(), "and takes the slot once it has waited out the lease like any standby");
    }

    @Test
    void aNodeWithoutAMembershipWaitsForNobody() throws Exception {
        SlotProtocol a = protocol.node(A).timing(poll(Duration.ofSeconds(1))).build();

        a.join();
        assertEquals(1, a.poll());

        assertEquals(List.of(), sleeps);
        assertEquals(List.of(), registry.readAll());
    }
}
