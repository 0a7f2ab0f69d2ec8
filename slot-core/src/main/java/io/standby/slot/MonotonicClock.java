package io.standby.slot;

import io.standby.slot.internal.SuspendAwareClock;

import java.util.function.LongSupplier;

/**
 * A node's own monotonic clock, for local deadlines only (self-fencing, a standby's observation window).
 *
 * <p>It never decides lease expiry in the database: that is the database server's clock. It is an
 * interface so that tests can tick it instead of sleeping. A node uses
 * {@link #countingSuspends(MonotonicClock, LongSupplier)}: its own deadlines must count the time its
 * machine was suspended, which the JVM's monotonic clock does not.
 */
@FunctionalInterface
public interface MonotonicClock {

    /** Nanoseconds from an arbitrary origin; only differences are meaningful. Never goes backwards. */
    long nanoTime();

    /** The JVM's monotonic clock ({@link System#nanoTime()}). */
    static MonotonicClock system() {
        return System::nanoTime;
    }

    /**
     * {@code monotonic}, plus the time the machine spent suspended, as told by the wall clock moving on
     * while the monotonic one stood still. Leases are judged on this clock.
     */
    static MonotonicClock countingSuspends(MonotonicClock monotonic, LongSupplier wallMillis) {
        return new SuspendAwareClock(monotonic, wallMillis);
    }
}
