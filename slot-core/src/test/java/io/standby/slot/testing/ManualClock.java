package io.standby.slot.testing;

import io.standby.slot.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A monotonic clock that moves only when the test says so. Published in slot-core's test jar, so that every module's
 * tests tick the same clock.
 */
public final class ManualClock implements MonotonicClock {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    public void tick(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }
}
