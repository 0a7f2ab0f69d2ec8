package io.standby.slot.internal;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.LATE_AT_4S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.testing.ManualClock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lost identity is lost for good: once a node's own address refused connects after accepting them, every later check
 * says so with the same reason, without probing again, and the node never claims again.
 */
class SlotProtocolIdentityTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(LATE_AT_4S);

    private final ManualClock clock = protocol.clock();

    @Test
    void everyCheckAfterTheLossReportsTheSameReasonWithoutProbingAgain() throws Exception {
        protocol.init(1);
        ScriptedProbe probe = new ScriptedProbe().then(A, ACCEPTED, REFUSED).always(A, ACCEPTED);
        SlotProtocol a = protocol.node(A)
                .bound()
                .on(new MongoSlotStore(protocol.db()))
                .fastFailover(probe)
                .build();
        assertEquals(1, a.poll());
        assertEquals(Optional.empty(), a.checkIdentity());
        String reason = a.checkIdentity().orElseThrow();
        long probes = probe.probesOf(A);

        assertEquals(Optional.of(reason), a.checkIdentity(), "lost for good, though the address would accept again");
        assertEquals(Optional.of(reason), a.checkIdentity());
        assertEquals(probes, probe.probesOf(A));
        clock.tick(LATE_AT_4S.poll());
        a.poll();
        assertEquals(List.of(), a.leases());
        assertTrue(
                new MongoSlotStore(protocol.db()).read("slot-0").orElseThrow().owner() == null,
                "the fenced slot handed back, not claimed again");
    }
}
