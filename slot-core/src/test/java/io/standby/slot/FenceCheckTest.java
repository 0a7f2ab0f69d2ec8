package io.standby.slot;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fence check runs at a quarter of the smallest margin in force, the watch margin included: behind a 20 s lease
 * with a 100 ms watch lease, the lease's margins (2 s, 600 ms) would give 100 ms, five times the 20 ms between the
 * owner's link deadline and a standby's claim.
 */
class FenceCheckTest {

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    private static final SlotTiming LONG =
            SlotTiming.of(Duration.ofSeconds(3), Duration.ofSeconds(20), Duration.ofSeconds(1));

    @Test
    void theCheckRunsAtAQuarterOfTheWatchMarginWhenThatIsTheSmallest() {
        assertEquals(ms(100), FenceCheck.interval(LONG, null), "without links: the longest period");
        assertEquals(ms(5), FenceCheck.interval(LONG, ms(100)), "0.2 × 100 ms / 4");
        assertEquals(ms(50), FenceCheck.interval(LONG, Duration.ofSeconds(1)), "0.2 × 1 s / 4");
        assertEquals(
                ms(50),
                FenceCheck.interval(SlotTiming.defaults(), Duration.ofSeconds(1)),
                "the defaults: the watch margin (200 ms) is below the late margin (400 ms) and the fence margin "
                        + "(500 ms)");
        assertEquals(
                ms(10), FenceCheck.interval(SlotTiming.of(ms(200), ms(1000), ms(200)), null), "the late margin 40 ms");
    }

    @Test
    void settingsWithAMarginBelowThePeriodAreRefusedByName() {
        assertDoesNotThrow(() -> FenceCheck.requireCovered(LONG, ms(100)));
        assertDoesNotThrow(() -> FenceCheck.requireCovered(SlotTiming.defaults(), ms(25)), "5 ms margin, 5 ms period");
        IllegalArgumentException watch = assertThrows(
                IllegalArgumentException.class, () -> FenceCheck.requireCovered(SlotTiming.defaults(), ms(24)));
        assertTrue(
                watch.getMessage()
                        .startsWith("the watch margin 4ms (0.2 × watch lease 24ms) is shorter than the fence check's "
                                + "period 5ms"),
                watch.getMessage());
        IllegalArgumentException fence = assertThrows(
                IllegalArgumentException.class,
                () -> FenceCheck.requireCovered(new SlotTiming(ms(100), ms(1000), ms(100), ms(4)), null));
        assertTrue(fence.getMessage().startsWith("the fence margin 4ms (lease 1s) is shorter"), fence.getMessage());
        IllegalArgumentException late = assertThrows(
                IllegalArgumentException.class,
                () -> FenceCheck.requireCovered(SlotTiming.of(ms(20), ms(1000), ms(100)), null));
        assertTrue(
                late.getMessage()
                        .startsWith("the late margin 4ms (a tenth of the late mark, 2 × heartbeat 20ms) is shorter"),
                late.getMessage());
    }
}
