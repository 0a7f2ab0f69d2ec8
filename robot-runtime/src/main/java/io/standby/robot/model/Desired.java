package io.standby.robot.model;

/** What the operator wants of a robot, stored as {@code desired}. */
public enum Desired {
    RUNNING,
    STOPPED,
    /**
     * Removal requested while a node runs the robot: that node stops it and deletes the document. The id cannot be
     * added again before that, so an old run never overlaps with a new robot of the same id.
     */
    REMOVED;

    /** The stored form: {@code running}, {@code stopped} or {@code removed}. */
    public String value() {
        return name().toLowerCase();
    }

    public static Desired of(String value) {
        return value == null ? RUNNING : valueOf(value.toUpperCase());
    }
}
