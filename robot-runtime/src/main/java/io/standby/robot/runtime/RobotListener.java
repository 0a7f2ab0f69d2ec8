package io.standby.robot.runtime;

import java.time.Duration;

/**
 * Hooks into the work of a node's robot runtime, for metrics. Every method has a no-op default.
 *
 * <p>Calls come from the robots' own threads and the runtime's writer, concurrently: an implementation must be
 * thread-safe and return at once. An exception it throws is logged and otherwise ignored.
 */
public interface RobotListener {

    /**
     * A checkpoint was acknowledged; {@code latency} runs from the robot's call to the acknowledgement, retries
     * included.
     */
    default void checkpointed(String robotId, Duration latency) {}

    /** The database rejected a write of this robot's run: another runner holds the robot now, and the run stops. */
    default void fenced(String robotId) {}

    /** The robot threw and is restarted after a backoff. */
    default void restarting(String robotId) {}

    /** The robot failed too often, or cannot be created: it is FAILED until an operator starts it again. */
    default void failed(String robotId) {}

    /**
     * The runtime sent one bulk write for {@code writes} checkpoints and status changes: the writes queued, counted
     * before a robot's several writes in one bulk are merged into one.
     */
    default void batchSent(int writes) {}

    /** A listener that does nothing. */
    RobotListener NONE = new RobotListener() {};
}
