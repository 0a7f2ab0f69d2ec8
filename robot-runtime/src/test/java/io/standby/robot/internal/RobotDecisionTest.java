package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.robot.internal.RobotDecision.Action;
import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Every decision the owner of a slot makes about one robot, as a pure function: the robot document, this lease's run of
 * it, the lease's epoch. Slot epoch 7 throughout; this node is {@code me}.
 */
class RobotDecisionTest {

    private static final long EPOCH = 7;
    private static final String ME = "10.0.0.1:7700";

    private static RobotView robot(long epoch, Desired desired, RobotState state, String node, String target) {
        return new RobotView(
                "r",
                "inc-1",
                "counter",
                "slot-0",
                0,
                1,
                new Document(),
                desired,
                state,
                node,
                new Document(),
                epoch,
                3,
                0,
                null,
                target,
                null);
    }

    private static RobotView fenced(Desired desired, RobotState state, String node) {
        return robot(EPOCH, desired, state, node, null);
    }

    /** This lease's run of the robot, as taken at the third fence. */
    private static final RobotToken RUN = new RobotToken("r", "inc-1", "slot-0", EPOCH, 3);

    private static Action decide(RobotView robot, RobotToken run, boolean aliveOnNode) {
        return RobotDecision.decide(
                robot, EPOCH, ME, run, aliveOnNode ? RobotDecision.OnNode.RUN_ALIVE : RobotDecision.OnNode.NO_RUN);
    }

    @Test
    void aRobotNewToTheSlotIsFencedFirst() {
        assertEquals(Action.FENCE, decide(robot(0, Desired.RUNNING, RobotState.PENDING, null, null), null, false));
        assertEquals(
                Action.FENCE,
                decide(robot(5, Desired.RUNNING, RobotState.RUNNING, "10.0.0.2:7700", null), null, false),
                "left by an earlier owner of the slot");
    }

    @Test
    void aRunWhoseTokenIsGoneStopsAtOnce() {
        assertEquals(
                Action.INTERRUPT_LOST,
                decide(robot(9, Desired.RUNNING, RobotState.RUNNING, null, null), RUN, true),
                "a later owner fenced it");
        assertEquals(
                Action.NONE,
                decide(robot(9, Desired.RUNNING, RobotState.RUNNING, null, null), null, false),
                "a later owner's robot is not this node's business");
        RobotView refenced = new RobotView(
                "r",
                "inc-1",
                "counter",
                "slot-0",
                0,
                1,
                new Document(),
                Desired.RUNNING,
                RobotState.RUNNING,
                ME,
                new Document(),
                EPOCH,
                4,
                0,
                null,
                null,
                null);
        assertEquals(Action.INTERRUPT_LOST, decide(refenced, RUN, true), "fenced again since the run began");
    }

    @Test
    void aRemovedRobotStopsAtOnceAndIsDeletedOnceNothingRunsIt() {
        assertEquals(Action.INTERRUPT_REMOVED, decide(fenced(Desired.REMOVED, RobotState.RUNNING, ME), RUN, true));
        assertEquals(Action.DELETE, decide(fenced(Desired.REMOVED, RobotState.RUNNING, ME), null, false));
        RobotView readded = new RobotView(
                "r",
                "inc-2",
                "counter",
                "slot-0",
                0,
                1,
                new Document(),
                Desired.RUNNING,
                RobotState.PENDING,
                null,
                new Document(),
                EPOCH,
                3,
                0,
                null,
                null,
                null);
        assertEquals(Action.INTERRUPT_REMOVED, decide(readded, RUN, true), "the id came back as a new incarnation");
    }

    @Test
    void nothingStartsWhileAnEarlierRunOfTheIdIsStillUnwindingHere() {
        assertEquals(Action.WAIT, decide(fenced(Desired.RUNNING, RobotState.PENDING, null), null, true));
        assertEquals(Action.WAIT, decide(fenced(Desired.REMOVED, RobotState.RUNNING, null), null, true));
    }

    @Test
    void aRunningRobotIsAskedToStopForAMoveOrAnOperatorAndOtherwiseKept() {
        assertEquals(
                Action.STOP_FOR_MOVE,
                decide(robot(EPOCH, Desired.RUNNING, RobotState.RUNNING, ME, "slot-1"), RUN, true));
        assertEquals(Action.STOP, decide(fenced(Desired.STOPPED, RobotState.RUNNING, ME), RUN, true));
        assertEquals(Action.KEEP, decide(fenced(Desired.RUNNING, RobotState.RUNNING, ME), RUN, true));
    }

    @Test
    void anIdleRobotIsHandedOverMarkedStoppedTakenOrStarted() {
        assertEquals(
                Action.HAND_OVER,
                decide(robot(EPOCH, Desired.RUNNING, RobotState.PENDING, null, "slot-1"), null, false));
        assertEquals(Action.MARK_STOPPED, decide(fenced(Desired.STOPPED, RobotState.RUNNING, ME), null, false));
        assertEquals(
                Action.NONE,
                decide(fenced(Desired.STOPPED, RobotState.STOPPED, null), null, false),
                "already shown stopped");
        assertEquals(Action.TAKE, decide(fenced(Desired.RUNNING, RobotState.PENDING, null), null, false));
        assertEquals(
                Action.TAKE,
                decide(fenced(Desired.RUNNING, RobotState.STOPPED, null), null, false),
                "started again after a stop");
        assertEquals(
                Action.LAUNCH,
                decide(fenced(Desired.RUNNING, RobotState.STARTING, ME), null, false),
                "taken by this node");
        assertEquals(
                Action.NONE,
                decide(fenced(Desired.RUNNING, RobotState.FAILED, null), null, false),
                "failed until an operator starts it");
    }
}
