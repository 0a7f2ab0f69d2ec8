package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.LATE_AT_4S;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.LossReason;
import io.standby.slot.RecordingListener;
import io.standby.slot.RecordingListener.Event;
import io.standby.slot.RecordingListener.Kind;
import io.standby.slot.testing.ManualClock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An owner without fast failover writes no late mark, so its leases never pause: a renewal answered only after the
 * lease's local deadline loses the slot (fenced), and its listener hears no pause first. Until 2026-11-26 such a lease
 * paused at its deadline (OwnedLease clamped "no late mark" down to the deadline), so the node logged and reported a
 * pause at a late mark it never declared.
 */
class OwnerWithoutLateMarkTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(LATE_AT_4S);

    private final ManualClock clock = protocol.clock();

    @Test
    void aRenewalAnsweredAfterTheDeadlineLosesTheSlotWithoutAPause() throws Exception {
        protocol.init(1);
        List<Event> log = new CopyOnWriteArrayList<>();
        SlotProtocol owner = protocol.node(ProtocolFixture.A)
                .on(new MongoSlotStore(protocol.db()))
                .listener(new RecordingListener("n7001", log))
                .build();
        assertEquals(1, owner.poll());

        // No fence check ran meanwhile (a stalled node): the renewal itself finds the deadline passed.
        clock.tick(LATE_AT_4S.lease());
        owner.renewAll();

        List<Event> mine = new RecordingListener("n7001", log).mine();
        assertEquals(
                List.of(Kind.ACQUIRED, Kind.LOST),
                mine.stream().map(Event::kind).toList());
        assertEquals(LossReason.FENCED, mine.getLast().reason());
    }
}
