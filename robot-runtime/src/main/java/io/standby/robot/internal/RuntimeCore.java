package io.standby.robot.internal;

/**
 * What the slots of a node share: the store, the writes, the node's write sequence, its identity as
 * written in {@code node}, and the launcher of runs, which knows the runs alive on the node.
 */
public record RuntimeCore(RobotStore store, RobotWrites writes, WriteSequence sequence, String node, Run.Launcher launcher) {
}
