package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link SlotProtocol#mayTake}, the predicate the simulation's safety invariant rests on (no node may be able to take a
 * slot whose owner's robots still run): a node may take a slot it does not hold if its own earlier process holds it and
 * binding proved that process gone, if the lease ran out by the server's clock and this node waited it out on its own,
 * or, with fast failover, if the owner is late by its own mark and this node watched it that long.
 */
class SlotProtocolMayTakeTest {

    private static final SlotTiming TIMING = ProtocolFixture.LATE_AT_4S_LONG_LEASE;

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(TIMING);

    private final ManualClock clock = protocol.clock();

    @BeforeEach
    void setUp() {
        protocol.init(1);
    }

    private SlotProtocol node(NodeId id, boolean fastFailover) {
        ProtocolFixture.Node node = protocol.node(id).bound();
        return (fastFailover ? node.fastFailover(new ScriptedProbe()) : node).build();
    }

    private SlotView slot() {
        return protocol.store().read("slot-0").orElseThrow();
    }

    private void heartbeatAgo(Duration ago) {
        protocol.slots()
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("time", Date.from(Instant.now().minus(ago))));
    }

    @Test
    void aSlotANodeHoldsIsNotOneItMayTake() throws Exception {
        SlotProtocol a = node(A, false);
        assertTrue(a.mayTake(slot()), "released: anyone may take it");
        a.poll();
        heartbeatAgo(Duration.ofMinutes(5));
        clock.tick(Duration.ofMinutes(5));
        a.poll();

        assertFalse(a.mayTake(slot()), "its own, held: expired by every clock, but not a slot to take");
    }

    @Test
    void aLiveSlotMayBeTakenOnlyOnceExpiredByTheServerAndWaitedOutHere() throws Exception {
        SlotProtocol a = node(A, false);
        SlotProtocol b = node(B, false);
        a.poll();
        b.poll();
        clock.tick(TIMING.lease());
        assertFalse(b.mayTake(slot()), "waited out here, but live by the server's clock");

        // The owner renews (its document too), then its heartbeat looks old to the server.
        a.renewAll();
        heartbeatAgo(Duration.ofMinutes(5));
        b.poll();
        assertFalse(
                b.mayTake(slot()),
                "expired by the server's clock, "
                        + "but b has watched neither this version nor its owner's beat for a lease");
        clock.tick(TIMING.lease());
        assertTrue(b.mayTake(slot()));
    }

    @Test
    void aRestartThatBoundItsAddressMayTakeItsEarlierProcesssSlotAtOnce() throws Exception {
        SlotProtocol before = node(A, false);
        before.poll();
        SlotProtocol after = node(A, false);
        after.join();

        assertTrue(after.mayTake(slot()), "live, but held by the earlier process binding proved gone");
        SlotProtocol other = node(B, false);
        other.poll();
        assertFalse(other.mayTake(slot()));
    }

    @Test
    void withFastFailoverALateOwnerMayBeTakenOverOnceWatchedForItsMarkWhateverAProbeWouldSay() throws Exception {
        SlotProtocol a = node(A, true);
        SlotProtocol b = node(B, true);
        SlotProtocol withoutFastFailover = node(new NodeId("127.0.0.1", 7003), false);
        a.poll();
        heartbeatAgo(Duration.ofSeconds(5));
        b.poll();
        withoutFastFailover.poll();
        assertFalse(b.mayTake(slot()), "late by the server's clock, not yet watched for the mark here");

        clock.tick(TIMING.late());
        SlotView late = slot();
        assertTrue(late.isLate() && !late.expired());
        assertTrue(b.mayTake(late));
        assertFalse(withoutFastFailover.mayTake(late), "a node without fast failover waits for the lease");
        assertFalse(a.mayTake(late), "never itself");
    }

    @Test
    void anOwnerThatWroteNoLateMarkIsNeverTakenOverEarly() throws Exception {
        SlotProtocol a = node(A, false);
        SlotProtocol b = node(B, true);
        a.poll();
        heartbeatAgo(Duration.ofSeconds(5));
        b.poll();
        clock.tick(TIMING.late().multipliedBy(3));

        assertFalse(b.mayTake(slot()));
    }
}
