package io.standby.slot;

/**
 * What a node's robots amount to, for its registry document: how many run, and how many failed for good.
 */
public record Workload(int running, int failed) {

    public static final Workload NONE = new Workload(0, 0);
}
