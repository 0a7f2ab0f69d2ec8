package io.standby.slot;

/**
 * A node's own monotonic clock, for local deadlines only (self-fencing, a standby's observation window).
 *
 * <p>It never decides lease expiry in the database: that is the database server's clock. It is an interface so that
 * tests can tick it instead of sleeping. A node judges its leases on one that also counts the time its machine was
 * suspended, which the JVM's monotonic clock does not.
 */
@FunctionalInterface
public interface MonotonicClock {

    /** Nanoseconds from an arbitrary origin; only differences are meaningful. Never goes backwards. */
    long nanoTime();

    /** The JVM's monotonic clock ({@link System#nanoTime()}). */
    static MonotonicClock system() {
        return System::nanoTime;
    }
}
