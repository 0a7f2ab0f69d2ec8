package io.standby.robot.internal;

import java.util.concurrent.CompletableFuture;

/**
 * Sends the writes of runs. A write's future completes with {@code true} once the database acknowledged it,
 * {@code false} when its token was stale (the robot was fenced, moved or removed), exceptionally with an
 * {@link IllegalArgumentException} when the database refused that write for good, and exceptionally with another
 * exception when it was not acknowledged (unreachable, or not confirmed by a majority): then it may or may not have
 * landed, and sending it again is safe.
 */
public interface RobotWrites {

    CompletableFuture<Boolean> submit(RobotWrite write);
}
