package io.standby.robot.runtime;

import io.standby.slot.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How the robot runtime runs robots.
 *
 * @param poll how often the node re-reads its slots' robots to notice additions, stops, moves and removals (use the
 *     node's slot poll)
 * @param stopTimeout on a graceful stop, how long robots get to checkpoint and return before they are interrupted
 *     (default 10 s)
 * @param restartBackoff the wait before the first restart of a robot that threw (default 1 s); it doubles with each
 *     failure
 * @param maxRestartBackoff the longest wait between restarts (default 1 min)
 * @param failureLimit this many failures within {@code failureWindow} mark a robot FAILED (default 5)
 * @param failureWindow default 5 min
 */
public record RuntimeConfig(
        Duration poll,
        Duration stopTimeout,
        Duration restartBackoff,
        Duration maxRestartBackoff,
        int failureLimit,
        Duration failureWindow) {

    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_RESTART_BACKOFF = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_RESTART_BACKOFF = Duration.ofMinutes(1);
    public static final int DEFAULT_FAILURE_LIMIT = 5;
    public static final Duration DEFAULT_FAILURE_WINDOW = Duration.ofMinutes(5);

    /** @throws IllegalArgumentException naming the offending value */
    public RuntimeConfig {
        positive("poll", poll);
        positive("stop timeout", stopTimeout);
        positive("restart backoff", restartBackoff);
        positive("maximum restart backoff", maxRestartBackoff);
        positive("failure window", failureWindow);
        if (maxRestartBackoff.compareTo(restartBackoff) < 0) {
            throw new IllegalArgumentException("maximum restart backoff " + Durations.format(maxRestartBackoff)
                    + " is below the restart backoff " + Durations.format(restartBackoff));
        }
        if (failureLimit < 1) {
            throw new IllegalArgumentException("failure limit " + failureLimit + " must be at least 1");
        }
    }

    public static RuntimeConfig defaults(Duration poll) {
        return new RuntimeConfig(
                poll,
                DEFAULT_STOP_TIMEOUT,
                DEFAULT_RESTART_BACKOFF,
                DEFAULT_MAX_RESTART_BACKOFF,
                DEFAULT_FAILURE_LIMIT,
                DEFAULT_FAILURE_WINDOW);
    }

    public RuntimeConfig withStopTimeout(Duration stopTimeout) {
        return new RuntimeConfig(poll, stopTimeout, restartBackoff, maxRestartBackoff, failureLimit, failureWindow);
    }

    public RuntimeConfig withRestarts(Duration backoff, Duration maxBackoff, int limit, Duration window) {
        return new RuntimeConfig(poll, stopTimeout, backoff, maxBackoff, limit, window);
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " " + Durations.format(value) + " must be more than 0");
        }
    }
}
