package io.standby.robot.internal;

import io.standby.robot.model.RobotToken;
import java.time.Duration;

/** One run of a robot on this node, as the robot's slot sees it. */
interface Run {

    /** Why a run is asked to finish, with a final checkpoint. */
    enum Stop {
        /** The operator set {@code desired: stopped}. */
        OPERATOR,
        /** The node stops gracefully and releases the slot. */
        RELEASE,
        /** The robot moves to another slot: the run hands it over once it has returned. */
        MOVE
    }

    RobotToken token();

    boolean isAlive();

    /** Asks the robot to finish; {@code target} is the slot of a move, else null. The first request sticks. */
    void requestStop(Stop why, String target);

    /** Stops the robot at once: it may write nothing more. */
    void interrupt();

    /** Stops the robot at once, as {@link #interrupt()}, because it was removed: its document is then deleted. */
    void interruptRemoved();

    /** If a status write of this run failed to arrive, sends the whole current status again. */
    void resendStatus();

    /**
     * The robot returned and the run is writing its last words (bounded by their own timeout): interrupting it now
     * would only lose its final state.
     */
    default boolean finishing() {
        return false;
    }

    /** Waits for the run to end; true if it did. */
    boolean await(Duration atMost) throws InterruptedException;

    /** Starts runs, and knows which robots have a run alive on this node. */
    interface Launcher {
        Run launch(io.standby.robot.model.RobotView robot, io.standby.slot.Lease lease);

        boolean aliveOnNode(String robotId);
    }
}
