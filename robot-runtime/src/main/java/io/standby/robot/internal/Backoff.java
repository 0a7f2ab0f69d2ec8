package io.standby.robot.internal;

import java.time.Duration;

/**
 * The runtime's one backoff: waits that double after each failure, up to a cap. A robot's restarts
 * ({@link Supervisor}), a checkpoint's retries ({@link RunContext}) and a change stream's reopening
 * ({@link RobotChangeWatcher}) all wait by this rule. An instance counts the attempts until {@link #reset()}; not
 * thread-safe.
 */
final class Backoff {

    private final Duration first;
    private final Duration max;
    private int attempts;

    Backoff(Duration first, Duration max) {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("backoff " + first + " up to " + max);
        }
        this.first = first;
        this.max = max;
    }

    /**
     * The wait before attempt {@code attempt} (from 1): {@code first} doubled {@code attempt - 1} times, at most
     * {@code max}.
     */
    static Duration wait(Duration first, Duration max, int attempt) {
        Duration wait = first.multipliedBy(1L << Math.min(Math.max(attempt - 1, 0), 20));
        return wait.compareTo(max) > 0 ? max : wait;
    }

    /** The wait before the next attempt; the one after will be twice as long, at most the cap. */
    Duration next() {
        return wait(first, max, ++attempts);
    }

    /** Back to the first wait: the last attempt has proven itself. */
    void reset() {
        attempts = 0;
    }
}
