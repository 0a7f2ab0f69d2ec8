package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import java.util.function.LongSupplier;

/**
 * A monotonic clock that also counts the time the machine was suspended. The JVM's monotonic clock stands still while a
 * host sleeps, so after a resume an owner would believe its lease still valid while the database, and every other node,
 * saw it expire long ago. The wall clock goes on during a suspend: whenever it has moved further than the monotonic
 * clock since the last reading (beyond a small tolerance for slewing), the difference is added for good. A wall clock
 * that steps back is ignored; one that an operator steps forward makes leases end early, which is the safe direction.
 *
 * <p>The suspend is noticed at the first reading after the resume: the fence check reads it within its interval, and
 * every lease check ({@code isValid}) reads it too.
 */
public final class SuspendAwareClock implements MonotonicClock {

    /** More than the wall and monotonic clocks drift apart between two readings (slewing is 0.05 % at most). */
    static final long TOLERANCE_NANOS = 100_000_000L;

    private final MonotonicClock monotonic;
    private final LongSupplier wallMillis;
    private long lastMonotonic;
    private long lastWallMillis;
    private long suspended;

    /**
     * The clock a node judges its leases on: the JVM's monotonic clock, moved forward by any time the machine was
     * suspended (seen as the wall clock running ahead of it).
     */
    public static SuspendAwareClock ofSystem() {
        return new SuspendAwareClock(MonotonicClock.system(), System::currentTimeMillis);
    }

    public SuspendAwareClock(MonotonicClock monotonic, LongSupplier wallMillis) {
        this.monotonic = monotonic;
        this.wallMillis = wallMillis;
        this.lastMonotonic = monotonic.nanoTime();
        this.lastWallMillis = wallMillis.getAsLong();
    }

    @Override
    public synchronized long nanoTime() {
        long now = monotonic.nanoTime();
        long wall = wallMillis.getAsLong();
        long unseen = (wall - lastWallMillis) * 1_000_000L - (now - lastMonotonic);
        if (unseen > TOLERANCE_NANOS) {
            suspended += unseen;
        }
        lastMonotonic = now;
        lastWallMillis = wall;
        return now + suspended;
    }
}
