package io.standby.robot.internal;

import io.standby.robot.RobotTypes;
import io.standby.robot.RuntimeConfig;
import io.standby.slot.NodeId;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every runner on a node shares: the store, the write batcher, the configuration, the robot
 * types, and the registry of runs whose thread is alive. A robot is started only when no earlier run of
 * it is alive on this node, so a run that is still unwinding never overlaps with the next one.
 */
public final class RuntimeCore {

    final RobotStore store;
    final WriteBatcher writes;
    final RuntimeConfig config;
    final RobotTypes types;
    final String node;
    final Map<String, RobotRun> alive = new ConcurrentHashMap<>();

    public RuntimeCore(RobotStore store, WriteBatcher writes, RuntimeConfig config, RobotTypes types, NodeId node) {
        this.store = store;
        this.writes = writes;
        this.config = config;
        this.types = types;
        this.node = node.toString();
    }
}
