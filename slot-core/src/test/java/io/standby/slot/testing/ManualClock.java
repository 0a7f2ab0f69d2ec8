package io.standby.slot.testing;

import io.standby.slot.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonic clock that moves only when the test says so. */
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
