package io.standby.robot;

/**
 * This run of a robot may no longer write: its slot now belongs to a later epoch, or the robot was stopped, moved or
 * removed. Thrown by {@link RobotContext#checkpoint}; the robot must return at once. The runtime treats it as the end
 * of the run, not as a failure.
 */
public class FencedException extends RuntimeException {

    public FencedException(String message) {
        super(message);
    }
}
