package io.standby.slot;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The timing rules, each at its boundary: the last value refused and the first accepted. */
class SlotTimingTest {

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    private static void refused(String message, Duration heartbeat, Duration lease, Duration poll, Duration margin) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new SlotTiming(heartbeat, lease, poll, margin));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    @Test
    void theHeartbeatIsMoreThanZero() {
        refused("heartbeat 0", ms(0), ms(1000), ms(100), ms(100));
        refused("heartbeat -", ms(-1), ms(1000), ms(100), ms(100));
        assertDoesNotThrow(() -> new SlotTiming(ms(1), ms(1000), ms(100), ms(100)));
    }

    @Test
    void theLeaseIsMoreThanTwiceTheHeartbeat() {
        refused("lease 1s must be more than twice the heartbeat", ms(500), ms(1000), ms(100), ms(100));
        assertDoesNotThrow(() -> new SlotTiming(ms(500), ms(1001), ms(100), ms(100)));
    }

    @Test
    void thePollIsMoreThanZeroAndLessThanTheLease() {
        refused("poll 0", ms(200), ms(1000), ms(0), ms(100));
        refused("poll -", ms(200), ms(1000), ms(-1), ms(100));
        refused("poll 1s must be less than the lease", ms(200), ms(1000), ms(1000), ms(100));
        assertDoesNotThrow(() -> new SlotTiming(ms(200), ms(1000), ms(1), ms(100)));
        assertDoesNotThrow(() -> new SlotTiming(ms(200), ms(1000), ms(999), ms(100)));
    }

    @Test
    void theFenceMarginIsMoreThanZeroAndLessThanTheLeaseMinusTheHeartbeat() {
        refused("fence margin 0", ms(200), ms(1000), ms(100), ms(0));
        refused("fence margin -", ms(200), ms(1000), ms(100), ms(-1));
        refused("fence margin 800ms", ms(200), ms(1000), ms(100), ms(800));
        assertDoesNotThrow(() -> new SlotTiming(ms(200), ms(1000), ms(100), ms(1)));
        assertDoesNotThrow(() -> new SlotTiming(ms(200), ms(1000), ms(100), ms(799)));
    }

    @Test
    void ofTakesATenthOfTheLeaseAsTheFenceMargin() {
        assertEquals(new SlotTiming(ms(200), ms(1000), ms(100), ms(100)), SlotTiming.of(ms(200), ms(1000), ms(100)));
        assertEquals(
                new SlotTiming(
                        SlotTiming.DEFAULT_HEARTBEAT,
                        SlotTiming.DEFAULT_LEASE,
                        SlotTiming.DEFAULT_POLL,
                        SlotTiming.DEFAULT_LEASE.dividedBy(10)),
                SlotTiming.defaults());
        assertEquals(ms(150), SlotTiming.of(ms(200), ms(1000), ms(100)).operationTimeout());
    }
}
