package io.standby.robot.model;

/** Where a robot is in its life, as stored in its document's {@code state} field. */
public enum RobotState {
    /** Waiting for the owner of its slot to start it (new, handed over, or its slot has no owner). */
    PENDING,
    /** Its slot's owner took it and is starting it. */
    STARTING,
    /** Running on the node named in {@code node}. */
    RUNNING,
    /** Stopped on request ({@code desired: stopped}) or finished. */
    STOPPED,
    /** Failed too often in a short time, or cannot be created; {@code lastError} says why. */
    FAILED
}
