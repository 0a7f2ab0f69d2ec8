package io.standby.robot.internal;

import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.MonotonicClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * When a robot that threw runs again: after a backoff that doubles with each failure within the window (capped), until
 * the failure limit is reached within the window, when it fails for good. Decisions only, on an injected clock: the run
 * does the waiting.
 */
final class Supervisor {

    private final RuntimeConfig config;
    private final MonotonicClock clock;
    private final Deque<Long> failures = new ArrayDeque<>();

    Supervisor(RuntimeConfig config, MonotonicClock clock) {
        this.config = config;
        this.clock = clock;
    }

    /** Records a failure now: the wait before the next run, or empty if the robot failed too often. */
    Optional<Duration> failed() {
        long now = clock.nanoTime();
        failures.addLast(now);
        while (now - failures.getFirst() > config.failureWindow().toNanos()) {
            failures.removeFirst();
        }
        if (failures.size() >= config.failureLimit()) {
            return Optional.empty();
        }
        return Optional.of(Backoff.wait(config.restartBackoff(), config.maxRestartBackoff(), failures.size()));
    }

    /** Failures within the window, the last one included. */
    int failures() {
        return failures.size();
    }
}
