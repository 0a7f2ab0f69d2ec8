package io.standby.node.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.SlotState;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the {@code standby.cluster.slots} gauges read: the database's counts by state, one read for all four, NaN when
 * it fails. The counts themselves are checked against the slots in SlotStoreContract.
 */
class SlotCensusTest {

    @Test
    void countsTheSlotsByStateWithOneReadForAllStates() {
        AtomicInteger reads = new AtomicInteger();
        SlotCensus census = new SlotCensus(() -> {
            reads.incrementAndGet();
            return Map.of(SlotState.OWNED, 1L, SlotState.EXPIRED, 1L, SlotState.FREE, 1L);
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
}
