package io.standby.node;

import com.mongodb.MongoClientSettings;
import io.standby.robot.runtime.RobotListener;
import io.standby.slot.SlotListener;

/**
 * What one start of a node takes from a {@link NodeExtension}. Every method has a no-op default; each is called once
 * per start, by the thread that starts the node.
 */
public interface NodeHooks {

    /**
     * Adds to the settings of the MongoDB clients the node opens itself (not of those given to
     * {@link StandbyNodeBuilder#databases}), after the application's own {@link StandbyNodeBuilder#clientSettings}.
     */
    default void configure(MongoClientSettings.Builder client) {}

    /** Told of every slot event before the application's listener and the robots are; same contract as theirs. */
    default SlotListener slotListener() {
        return SlotListener.NONE;
    }

    /** Told of the robots' checkpoints, fenced writes, restarts, failures and write batches. */
    default RobotListener robotListener() {
        return RobotListener.NONE;
    }

    /**
     * The node has joined the protocol and runs: add HTTP paths, gauges. An exception fails the start, and everything
     * the node opened is closed again.
     */
    default void started(StartedNode node) {}
}
