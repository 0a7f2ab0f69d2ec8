package io.standby.robot.internal;

import java.time.Duration;

/** Waits that double after each failure, up to a cap, until {@link #reset()}. Not thread-safe. */
final class Backoff {

    private final Duration first;
    private final Duration max;
    private Duration next;

    Backoff(Duration first, Duration max) {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("backoff " + first + " up to " + max);
        }
        this.first = first;
        this.max = max;
        this.next = first;
    }

    /** The wait before the next attempt; the one after will be twice as long, at most the cap. */
    Duration next() {
        Duration wait = next;
        next = wait.compareTo(max.dividedBy(2)) > 0 ? max : wait.multipliedBy(2);
        return wait;
    }

    /** Back to the first wait: the last attempt has proven itself. */
    void reset() {
        next = first;
    }
}
