package io.standby.node.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.NodeId;
import io.standby.slot.SlotState;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the {@code standby.cluster.slots} gauges read: counts by state, one read for all four, NaN when it fails. */
class SlotCensusTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final NodeId NODE = new NodeId("127.0.0.1", 7700);

    @Test
    void countsTheSlotsByStateWithOneReadForAllStates() {
        AtomicInteger reads = new AtomicInteger();
        SlotCensus census = new SlotCensus(() -> {
            reads.incrementAndGet();
            return List.of(
                    slot("slot-0", NODE, Duration.ofSeconds(1)),
                    slot("slot-1", NODE, Duration.ofSeconds(9)),
                    SlotView.of("slot-2", null, null, Instant.EPOCH, LEASE, 3, Duration.ofDays(20000)));
        });
        assertEquals(1.0, census.count(SlotState.OWNED));
        assertEquals(1.0, census.count(SlotState.EXPIRED));
        assertEquals(1.0, census.count(SlotState.FREE));
        assertEquals(0.0, census.count(SlotState.REVOKED));
        assertEquals(1, reads.get(), "the four gauges of one scrape share a read");
    }

    @Test
    void aFailedReadIsNoNumberNotZero() {
        SlotCensus census = new SlotCensus(() -> {
            throw new IllegalStateException("no answer from the database");
        });
        assertEquals(Double.NaN, census.count(SlotState.FREE), "zero would say every slot is owned");
    }

    private static SlotView slot(String id, NodeId owner, Duration age) {
        return SlotView.of(id, owner, "instance-1", Instant.now().minus(age), LEASE, 1, age);
    }
}
