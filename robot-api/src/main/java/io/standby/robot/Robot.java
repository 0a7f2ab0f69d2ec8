package io.standby.robot;

/**
 * A long-running loop written by a user: a crawler, a trading strategy, a chat bot, a stream consumer.
 *
 * <p>{@link #run} should not return until the robot wishes to stop: it returns when
 * {@link RobotContext#stopRequested()} turns true (after a final {@link RobotContext#checkpoint}), and it must stop
 * promptly when its thread is interrupted, which happens when the node loses the robot's slot. Each run gets its own
 * virtual thread and a fresh instance from the {@link RobotFactory}.
 *
 * <p>If {@code run} throws, the runtime restarts the robot with exponential backoff, from its last checkpoint; after
 * too many failures in a short time the robot is marked {@code FAILED}. If it returns without being asked to stop, the
 * robot is considered finished and is not started again.
 */
@FunctionalInterface
public interface Robot {

    void run(RobotContext context) throws Exception;
}
