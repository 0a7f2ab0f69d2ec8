package io.standby.robot;

/** What the operator wants of a robot, stored as {@code desired}. */
public enum Desired {
    RUNNING, STOPPED;

    /** The stored form: {@code running} or {@code stopped}. */
    public String value() {
        return name().toLowerCase();
    }

    public static Desired of(String value) {
        return value == null ? RUNNING : valueOf(value.toUpperCase());
    }
}
