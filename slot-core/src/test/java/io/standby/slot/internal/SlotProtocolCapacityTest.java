package io.standby.slot.internal;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.C;
import static io.standby.slot.internal.ProtocolFixture.LATE_AT_4S_LONG_LEASE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.Lease;
import io.standby.slot.NodeId;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node never holds more than its {@code maxSlots}, by whichever path a slot comes to it: a claim of a free or expired
 * slot, or a take-over from an owner found gone (fast failover). Heartbeat ages are set by writing the slot documents;
 * connects are scripted.
 */
class SlotProtocolCapacityTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(LATE_AT_4S_LONG_LEASE);

    private final ManualClock clock = protocol.clock();
    private final List<Duration> sleeps = protocol.sleeps();
    private final ScriptedProbe probe = new ScriptedProbe();

    private SlotProtocol node(NodeId id, int maxSlots) {
        return protocol.node(id).maxSlots(maxSlots).bound().fastFailover(probe).build();
    }

    private void lateHeartbeats(String... ids) {
        for (String id : ids) {
            protocol.slots()
                    .updateOne(
                            Filters.eq("_id", id),
                            Updates.set("time", Date.from(Instant.now().minusSeconds(5))));
        }
    }

    private static List<String> held(SlotProtocol node) {
        return node.leases().stream().map(Lease::slotId).toList();
    }

    @Test
    void aStandbyTakesOverFromGoneOwnersOnlyAsManySlotsAsItHasRoomFor() throws Exception {
        protocol.init(2);
        SlotProtocol a = node(A, 1);
        SlotProtocol c = node(C, 1);
        SlotProtocol b = node(B, 1);
        probe.then(A, ACCEPTED).then(C, ACCEPTED);
        assertEquals(1, a.poll());
        assertEquals(1, c.poll());
        assertEquals(0, b.poll(), "learns that both owners' addresses accept");

        // Both owners die at once.
        probe.always(A, REFUSED).always(C, REFUSED);
        lateHeartbeats("slot-0", "slot-1");
        assertEquals(0, b.poll());
        clock.tick(LATE_AT_4S_LONG_LEASE.late());

        assertEquals(1, b.poll());
        assertEquals(1, held(b).size());
        assertEquals(
                1,
                protocol.store().readAll().stream()
                        .filter(s -> B.equals(s.owner()))
                        .count(),
                "one slot taken, one left to others");
        assertEquals(0, b.poll(), "and none at the next poll");
        assertEquals(
                1,
                protocol.store().readAll().stream()
                        .filter(s -> B.equals(s.owner()))
                        .count());
    }

    /** A, then B, room for one each, claim one of two slots each, with the probe as the test scripted it. */
    private SlotProtocol[] eachHoldsOneOfTwo(String whyBIsFull) throws InterruptedException {
        protocol.init(2);
        SlotProtocol a = node(A, 1);
        SlotProtocol b = node(B, 1);
        assertEquals(1, a.poll());
        assertEquals(1, b.poll(), whyBIsFull);
        return new SlotProtocol[] {a, b};
    }

    @Test
    void aNodeThatIsFullProbesNobodyAndTakesNothingOver() throws Exception {
        probe.then(A, ACCEPTED);
        SlotProtocol[] ab = eachHoldsOneOfTwo("b holds the other slot: it is full");
        SlotProtocol a = ab[0];
        SlotProtocol b = ab[1];
        String ofA = held(a).getFirst();
        long probes = probe.probesOf(A);

        probe.always(A, REFUSED);
        lateHeartbeats(ofA);
        b.poll();
        clock.tick(LATE_AT_4S_LONG_LEASE.late());
        b.renewAll();

        assertEquals(0, b.poll());
        assertEquals(A, protocol.slot(ofA).owner());
        assertEquals(probes, probe.probesOf(A), "a full node judges nobody");
    }

    @Test
    void aNodeClaimsExactlyUpToItsMaxSlotsAcrossPolls() throws Exception {
        protocol.init(4);
        SlotProtocol a = node(A, 2);

        assertEquals(2, a.poll());
        assertEquals(0, a.poll());
        assertEquals(2, held(a).size());
        assertEquals(
                2,
                protocol.store().readAll().stream()
                        .filter(s -> A.equals(s.owner()))
                        .count());
    }

    @Test
    void aFullNodeStopsProbingTimelyOwnersItCouldNotTakeOverFrom() throws Exception {
        probe.always(A, ACCEPTED);
        SlotProtocol[] ab =
                eachHoldsOneOfTwo("b learns that a's address accepts, then takes the other slot: it is full");
        long probes = probe.probesOf(A);

        // Past the time after which a node that may take over asks a timely owner's address again.
        for (int i = 0; i < 2 * GoneOwners.RETRY.dividedBy(LATE_AT_4S_LONG_LEASE.heartbeat()); i++) {
            clock.tick(LATE_AT_4S_LONG_LEASE.heartbeat());
            ab[0].renewAll();
            ab[1].renewAll();
            assertEquals(0, ab[1].poll());
        }

        assertEquals(probes, probe.probesOf(A), "no connects from a node that could not use what they teach");
    }
}
