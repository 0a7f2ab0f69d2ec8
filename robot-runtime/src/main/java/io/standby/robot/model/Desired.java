package io.standby.robot.model;

/** What the operator wants of a robot, stored as {@code desired}. */
public enum Desired {
    RUNNING,
    STOPPED,
    /**
     * Removal requested while a node runs the robot: that node stops it and deletes the document. The id cannot be
     * added again before that, so an old run never overlaps with a new robot of the same id.
     */
    REMOVED,
    /**
     * Being added: the robot's document exists but its id is not yet bound to it in the id registry, so no node starts
     * it and no operator's command changes it. An add that never binds its id deletes the document.
     */
    ADDING;

    /** The stored form: {@code running}, {@code stopped}, {@code removed} or {@code adding}. */
    public String value() {
        return name().toLowerCase();
    }

    public static Desired of(String value) {
        return value == null ? RUNNING : valueOf(value.toUpperCase());
    }
}
