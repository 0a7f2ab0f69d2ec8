package io.standby.robot.internal;

import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.robot.model.Runnability;
import java.util.Objects;

/**
 * What the owner of a slot does about one of the slot's robots: a pure function of the robot document, this node's run
 * of it, and the lease's epoch. Every decision of the robot runtime is made here.
 */
public final class RobotDecision {

    public enum Action {
        /** Nothing to do now. */
        NONE,
        /** New to the slot (added, or moved in): bring it under this lease's token first. */
        FENCE,
        /** Its token is gone (a later owner fenced it, or it left the slot): stop the run at once. */
        INTERRUPT_LOST,
        /** It was removed (and maybe added again as a new incarnation): stop the run at once. */
        INTERRUPT_REMOVED,
        /** A move was requested: the run checkpoints, returns, and hands the robot over. */
        STOP_FOR_MOVE,
        /** The operator wants it stopped: the run checkpoints and returns. */
        STOP,
        /** It runs as it should. */
        KEEP,
        /** An earlier run of this id is still unwinding on this node: nothing may start before it ends. */
        WAIT,
        /** Removal requested and nobody runs it: delete the document. */
        DELETE,
        /** A move was requested and nobody runs it: hand it over to the target slot. */
        HAND_OVER,
        /** Stopped by the operator and nobody runs it: record that it is stopped. */
        MARK_STOPPED,
        /** It should run: take it (conditional on nobody else having it) before starting it. */
        TAKE,
        /** This node took it under this lease: start it. */
        LAUNCH
    }

    /** Whether any run of the robot's id is still alive on this node, under any lease. */
    public enum OnNode {
        NO_RUN,
        RUN_ALIVE
    }

    private RobotDecision() {}

    /**
     * @param robot the robot as read (watched fields, or the whole document)
     * @param leaseEpoch the epoch of this node's lease on the robot's slot
     * @param node this node's identity, as written in {@code node}
     * @param runToken the token of this node's live run of the robot under this lease, or null if there is none
     * @param onNode whether any run of this robot id is still alive on this node, under any lease
     */
    public static Action decide(RobotView robot, long leaseEpoch, String node, RobotToken runToken, OnNode onNode) {
        boolean running = runToken != null;
        if (running && !Objects.equals(runToken.incarnation(), robot.incarnation())) {
            return Action.INTERRUPT_REMOVED;
        }
        if (robot.epoch() != leaseEpoch) {
            // Above: a later owner of the slot fenced it. Below: it came into the slot after this lease began
            // (a run of this lease holds the lease's epoch, so such a document is not the one it runs).
            if (running) {
                return Action.INTERRUPT_LOST;
            }
            return robot.epoch() < leaseEpoch ? Action.FENCE : Action.NONE;
        }
        if (running && runToken.fences() != robot.fences()) {
            // Fenced again since the run began: its token is gone.
            return Action.INTERRUPT_LOST;
        }
        if (running) {
            if (robot.desired() == Desired.REMOVED) {
                return Action.INTERRUPT_REMOVED;
            }
            if (robot.moving()) {
                return Action.STOP_FOR_MOVE;
            }
            return robot.desired() == Desired.STOPPED ? Action.STOP : Action.KEEP;
        }
        if (onNode == OnNode.RUN_ALIVE) {
            return Action.WAIT;
        }
        if (robot.desired() == Desired.REMOVED) {
            return Action.DELETE;
        }
        if (robot.moving()) {
            return Action.HAND_OVER;
        }
        if (robot.desired() == Desired.STOPPED) {
            return robot.state() != RobotState.STOPPED || robot.node() != null ? Action.MARK_STOPPED : Action.NONE;
        }
        // desired decides; state only reports, but for a failure (Runnability). A robot stopped a moment ago
        // may be wanted again already. The take's filter asks the same of the document.
        if (!Runnability.runnable(robot)) {
            return Action.NONE;
        }
        return node.equals(robot.node()) && robot.state() == RobotState.STARTING ? Action.LAUNCH : Action.TAKE;
    }
}
