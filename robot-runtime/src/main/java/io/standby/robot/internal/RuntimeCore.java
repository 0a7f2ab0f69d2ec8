package io.standby.robot.internal;

import io.standby.slot.MonotonicClock;

/**
 * What the slots of a node share: the store, the writes, the node's write sequence, its identity as written in
 * {@code node}, the launcher of runs, which knows the runs alive on the node, and the clock of local waits.
 */
public record RuntimeCore(
        RobotStore store,
        RobotWrites writes,
        WriteSequence sequence,
        String node,
        Run.Launcher launcher,
        MonotonicClock clock) {}
