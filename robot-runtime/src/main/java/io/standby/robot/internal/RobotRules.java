package io.standby.robot.internal;

import static io.standby.robot.model.RobotFields.DESIRED;
import static io.standby.robot.model.RobotFields.EPOCH;
import static io.standby.robot.model.RobotFields.FENCES;
import static io.standby.robot.model.RobotFields.ID;
import static io.standby.robot.model.RobotFields.INCARNATION;
import static io.standby.robot.model.RobotFields.LAST_ERROR;
import static io.standby.robot.model.RobotFields.NODE;
import static io.standby.robot.model.RobotFields.REQUEST;
import static io.standby.robot.model.RobotFields.RESTARTS;
import static io.standby.robot.model.RobotFields.SEQ;
import static io.standby.robot.model.RobotFields.SLOT;
import static io.standby.robot.model.RobotFields.STATE;
import static io.standby.robot.model.RobotFields.STATUS_SEQ;
import static io.standby.robot.model.RobotFields.TARGET;
import static io.standby.robot.model.RobotFields.UPDATED;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.Desired;
import io.standby.robot.model.FlatFilter;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.robot.model.Runnability;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.bson.conversions.Bson;

/**
 * Every filter and update of the robot store, the runtime's and the operator's ({@code RobotTable}), written once, as
 * the documents sent to MongoDB: {@link MongoRobotStore} sends them, and the simulation evaluates these very documents
 * on its own database, so a change to a rule here changes what both see. The conditions of a run's own operations live
 * with their records and are used the same way: {@link RobotToken#filter()} (the token) and
 * {@link RobotWrite#filter()}/{@link RobotWrite#update()} (a checkpoint or status write).
 *
 * <p>Filters on a robot's {@code _id} are flat ({@link FlatFilter}), so that a server finds the documents by
 * {@code _id}.
 */
public final class RobotRules {

    private RobotRules() {}

    /** The slot's robots (all, or those listed) below {@code epoch}. */
    public static Bson fenceFilter(String slotId, long epoch, Collection<String> onlyIds) {
        return onlyIds == null
                ? Filters.and(Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch))
                : FlatFilter.and(Filters.in(ID, onlyIds), Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch));
    }

    /** Raises the epoch, counts the fence, clears the runner and restarts both write sequences under the new token. */
    public static Bson fenceUpdate(long epoch) {
        return Updates.combine(
                Updates.set(EPOCH, epoch),
                Updates.inc(FENCES, 1L),
                Updates.set(NODE, null),
                Updates.set(SEQ, 0L),
                Updates.set(STATUS_SEQ, 0L),
                Updates.currentDate(UPDATED));
    }

    /**
     * A forced release's fence ({@code slots release}): the slot's robots below the epoch the release left the slot at.
     * Unlike {@link #fenceFilter}'s update it keeps the runner: the former owner may still run them until it notices,
     * so they move or go only through the handshake.
     */
    public static Bson revokeFilter(String slotId, long epoch) {
        return Filters.and(Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch));
    }

    /** Raises the epoch, which refuses every write under an earlier token. */
    public static Bson revokeUpdate(long epoch) {
        return Updates.combine(Updates.set(EPOCH, epoch), Updates.currentDate(UPDATED));
    }

    /**
     * The listed robots, fenced at this epoch, runnable ({@link Runnability#filter}) and run by nobody else. A robot
     * already taken at this epoch is this node's all the same, and taken again: every take counts as a fence, so each
     * run of a robot under one lease has a token of its own.
     */
    public static Bson takeFilter(String slotId, long epoch, Collection<String> ids, String node) {
        // Flat, so that a server that finds documents by _id does so for the ids' $in (the embedded one
        // otherwise matches every robot against every id: 10,000 robots took seconds).
        return FlatFilter.and(
                Filters.in(ID, ids),
                Filters.eq(EPOCH, epoch),
                Filters.in(NODE, Arrays.asList(null, node)),
                Runnability.filter(slotId));
    }

    /** The node runs them (STARTING); a take counts as a fence and restarts both write sequences. */
    public static Bson takeUpdate(String node) {
        return Updates.combine(
                Updates.set(NODE, node),
                Updates.set(STATE, RobotState.STARTING.name()),
                Updates.inc(FENCES, 1L),
                Updates.set(SEQ, 0L),
                Updates.set(STATUS_SEQ, 0L),
                Updates.currentDate(UPDATED));
    }

    /**
     * The fence and the take at once, for a slot's robots a new lease finds below its epoch: those of them that are
     * runnable ({@link Runnability#filter}), whoever ran them before. What the take asks of a robot besides (fenced at
     * this epoch, run by nobody else) the fence makes true in the same atomic update: it raises the epoch and replaces
     * the runner.
     */
    public static Bson fenceTakeFilter(String slotId, long epoch) {
        return FlatFilter.and(Filters.lt(EPOCH, epoch), Runnability.filter(slotId));
    }

    /**
     * {@link #fenceUpdate} and {@link #takeUpdate} as one: the new epoch, this node as the runner, both write sequences
     * restarted, and one fence counted. One is enough for a token of its own: no run ever held this epoch before, so
     * (epoch, fences) is new, and a later take under the lease counts one more. Unlike a take it keeps {@code state},
     * as the fence does: the start order puts first the robots that a former runner was running, and reads that in the
     * state loaded after this update; each run writes RUNNING as it starts.
     */
    public static Bson fenceTakeUpdate(long epoch, String node) {
        return Updates.combine(
                Updates.set(EPOCH, epoch),
                Updates.inc(FENCES, 1L),
                Updates.set(NODE, node),
                Updates.set(SEQ, 0L),
                Updates.set(STATUS_SEQ, 0L),
                Updates.currentDate(UPDATED));
    }

    /** The slot's robots fenced at {@code epoch} (all, or those listed). */
    public static Bson loadFilter(String slotId, long epoch, Collection<String> onlyIds) {
        return onlyIds == null
                ? Filters.and(Filters.eq(SLOT, slotId), Filters.eq(EPOCH, epoch))
                : FlatFilter.and(Filters.in(ID, onlyIds), Filters.eq(SLOT, slotId), Filters.eq(EPOCH, epoch));
    }

    /** The fields a node watches each poll: enough to notice additions, removals, moves and operator changes. */
    public static final List<String> WATCHED = List.of(INCARNATION, SLOT, EPOCH, FENCES, DESIRED, STATE, NODE, TARGET);

    /** Every robot of these slots, read with {@link #WATCHED} only. */
    public static Bson watchFilter(Collection<String> slotIds) {
        return Filters.in(SLOT, slotIds);
    }

    /** The listed robots, by id. */
    public static Bson storedFilter(Collection<String> ids) {
        return Filters.in(ID, ids);
    }

    /**
     * A robot's move to the slot it should go to, context and all, followed by a word to that slot's owner: the one
     * hand-over, by a run that returned for the move, by its slot's owner when nobody runs it, and by the operator when
     * nobody runs it. The epoch starts over, and the new slot's owner raises it.
     *
     * @param runner the token the write is under, for a runner's or owner's hand-over; null for the operator's
     */
    public record HandOver(Bson filter, Bson update, String toSlot, RobotToken runner) {}

    /**
     * The hand-over of a robot under the token of its run or of its slot's owner.
     *
     * @param asRead the robot's state as read: a state that needs no runner to be true (FAILED, STOPPED) is kept where
     *     it goes, and then must still be the state; any other becomes PENDING
     */
    public static HandOver handOver(RobotToken token, RobotState asRead, String toSlot) {
        return new HandOver(
                FlatFilter.and(token.filter(), handOverState(asRead)),
                Updates.combine(handOverUpdate(toSlot, asRead), Updates.currentDate(UPDATED)),
                toSlot,
                token);
    }

    /**
     * The operator's hand-over of a robot nobody runs, as read: a runner must take it (set {@code node}) before
     * starting it, so this cannot race one. Stamped as an operator's change.
     */
    public static HandOver idleHandOver(RobotView robot, String toSlot) {
        return new HandOver(
                FlatFilter.and(
                        asRead(robot),
                        Filters.eq(EPOCH, robot.epoch()),
                        Filters.eq(NODE, null),
                        handOverState(robot.state())),
                operatorChange(robot, handOverUpdate(toSlot, robot.state())),
                toSlot,
                null);
    }

    /** Only a start clears a failure, and a stop needs no runner; STARTING and RUNNING claimed one. */
    private static boolean keptByAHandOver(RobotState state) {
        return state == RobotState.FAILED || state == RobotState.STOPPED;
    }

    private static Bson handOverState(RobotState asRead) {
        return keptByAHandOver(asRead)
                ? Filters.eq(STATE, asRead.name())
                : Filters.nin(STATE, RobotState.FAILED.name(), RobotState.STOPPED.name());
    }

    private static Bson handOverUpdate(String toSlot, RobotState asRead) {
        List<Bson> updates = new ArrayList<>(List.of(
                Updates.set(SLOT, toSlot), Updates.set(EPOCH, 0L), Updates.set(NODE, null), Updates.unset(TARGET)));
        if (!keptByAHandOver(asRead)) {
            updates.add(Updates.set(STATE, RobotState.PENDING.name()));
        }
        return Updates.combine(updates);
    }

    /** A robot whose removal was requested, under the token of the run that stopped it. */
    public static Bson deleteFilter(RobotToken token) {
        return FlatFilter.and(token.filter(), Filters.eq(DESIRED, Desired.REMOVED.value()));
    }

    // ---- The operator's changes (RobotTable): each conditional on the robot as the operator read it ----

    /** One operator's change of one robot: an {@code updateOne}. */
    public record Change(Bson filter, Bson update) {}

    /**
     * Makes the robot an add inserted wanted running, once its id is bound to it: the first moment a node may start it.
     * Stamped as an operator's change, so that a node's change stream reports it, and dated by the database's clock.
     */
    public static Change added(String id, String incarnation, String slotId) {
        return new Change(
                adding(id, incarnation),
                Updates.combine(
                        Updates.set(DESIRED, Desired.RUNNING.value()),
                        Updates.set(REQUEST, RobotCodec.request(slotId)),
                        Updates.currentDate(UPDATED)));
    }

    /** This incarnation of a robot, as an add inserted it and before {@link #added}: a {@code deleteOne}. */
    public static Bson adding(String id, String incarnation) {
        return FlatFilter.and(
                Filters.eq(ID, id), Filters.eq(INCARNATION, incarnation), Filters.eq(DESIRED, Desired.ADDING.value()));
    }

    /** Cancels a pending move of a robot that is where it should be. */
    public static Change cancelMove(RobotView robot) {
        return new Change(asRead(robot), operatorChange(robot, Updates.unset(TARGET)));
    }

    /** Asks the runner of a robot to stop it and hand it over to {@code toSlot}. */
    public static Change requestMove(RobotView robot, String toSlot) {
        return new Change(
                FlatFilter.and(asRead(robot), Filters.ne(NODE, null)),
                operatorChange(robot, Updates.set(TARGET, toSlot)));
    }

    /** Stops a robot nobody runs: it is stopped at once. */
    public static Change stopIdle(RobotView robot) {
        return new Change(
                FlatFilter.and(
                        Filters.eq(ID, robot.id()),
                        Filters.eq(NODE, null),
                        Filters.ne(DESIRED, Desired.ADDING.value())),
                operatorChange(
                        robot,
                        Updates.set(DESIRED, Desired.STOPPED.value()),
                        Updates.set(STATE, RobotState.STOPPED.name())));
    }

    /** Asks a robot's runner to stop it (unless its removal is pending); the runner records STOPPED. */
    public static Change requestStop(RobotView robot) {
        return new Change(notRemoved(robot), operatorChange(robot, Updates.set(DESIRED, Desired.STOPPED.value())));
    }

    /** Clears a failure, so that the robot is tried again with a fresh count of restarts. */
    public static Change clearFailure(RobotView robot) {
        return new Change(
                FlatFilter.and(Filters.eq(ID, robot.id()), Filters.eq(STATE, RobotState.FAILED.name())),
                Updates.combine(
                        Updates.set(STATE, RobotState.PENDING.name()),
                        Updates.set(RESTARTS, 0),
                        Updates.set(LAST_ERROR, null)));
    }

    /** Wants a robot running (unless its removal is pending). */
    public static Change wantRunning(RobotView robot) {
        return new Change(notRemoved(robot), operatorChange(robot, Updates.set(DESIRED, Desired.RUNNING.value())));
    }

    /** This incarnation of a robot, while nobody runs it: a {@code deleteOne}. */
    public static Bson idleDeleteFilter(RobotView robot) {
        return FlatFilter.and(
                Filters.eq(ID, robot.id()), Filters.eq(INCARNATION, robot.incarnation()), Filters.eq(NODE, null));
    }

    /** Asks the runner of this incarnation to stop it and delete its document. */
    public static Change requestRemoval(RobotView robot) {
        return new Change(
                FlatFilter.and(
                        Filters.eq(ID, robot.id()),
                        Filters.eq(INCARNATION, robot.incarnation()),
                        Filters.ne(NODE, null)),
                operatorChange(robot, Updates.set(DESIRED, Desired.REMOVED.value())));
    }

    /** This incarnation of the robot, in the slot it was read in. */
    private static Bson asRead(RobotView robot) {
        return FlatFilter.and(
                Filters.eq(ID, robot.id()),
                Filters.eq(INCARNATION, robot.incarnation()),
                Filters.eq(SLOT, robot.slotId()));
    }

    /** By id alone, so never a robot being added: only its add makes it wanted, once the id is bound to it. */
    private static Bson notRemoved(RobotView robot) {
        return FlatFilter.and(
                Filters.eq(ID, robot.id()), Filters.nin(DESIRED, Desired.REMOVED.value(), Desired.ADDING.value()));
    }

    /**
     * An operator's change: the updates, the request stamp a node's change stream watches for (the whole
     * {@code request}, naming the slot the robot was read in; see {@code RobotChanges}), and the time.
     */
    private static Bson operatorChange(RobotView robot, Bson... updates) {
        List<Bson> all = new ArrayList<>(List.of(updates));
        all.add(Updates.set(REQUEST, RobotCodec.request(robot.slotId())));
        all.add(Updates.currentDate(UPDATED));
        return Updates.combine(all);
    }
}
