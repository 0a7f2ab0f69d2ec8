package io.standby.slot.internal;

import io.standby.slot.ManualClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static io.standby.slot.internal.OwnerProbe.Result.ACCEPTED;
import static io.standby.slot.internal.OwnerProbe.Result.REFUSED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lost identity is lost for good: once a node's own address refused connects after accepting them, every
 * later check says so with the same reason, without probing again, and the node never claims again.
 */
class SlotProtocolIdentityTest {

    private static final SlotTiming TIMING = SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(1));
    private static final NodeId A = new NodeId("127.0.0.1", 7001);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    @Test
    void everyCheckAfterTheLossReportsTheSameReasonWithoutProbingAgain() throws Exception {
        StandbyDatabase db = database.connection();
        new SlotTable(db).init(1);
        ManualClock clock = new ManualClock();
        ScriptedProbe probe = new ScriptedProbe().then(A, ACCEPTED, REFUSED).always(A, ACCEPTED);
        SlotProtocol a = new SlotProtocol(ProtocolSetup.of(new MongoSlotStore(db),
                new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId(), true),
                clock, new EveryEvent())
                .withSleeper(d -> { })
                .withFastFailover(new GoneOwners(probe, d -> { }, clock, Duration.ofMillis(100), GoneOwners.GAP)));
        assertEquals(1, a.poll());
        assertEquals(Optional.empty(), a.checkIdentity());
        String reason = a.checkIdentity().orElseThrow();
        long probes = probe.probesOf(A);

        assertEquals(Optional.of(reason), a.checkIdentity(), "lost for good, though the address would accept again");
        assertEquals(Optional.of(reason), a.checkIdentity());
        assertEquals(probes, probe.probesOf(A));
        clock.tick(TIMING.poll());
        a.poll();
        assertEquals(List.of(), a.leases());
        assertTrue(new MongoSlotStore(db).read("slot-0").orElseThrow().owner() == null, "the fenced slot handed back, not claimed again");
    }
}
