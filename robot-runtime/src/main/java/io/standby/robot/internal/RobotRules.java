package io.standby.robot.internal;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.model.Desired;
import io.standby.robot.model.FlatFilter;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.Runnability;
import org.bson.conversions.Bson;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import static io.standby.robot.model.RobotFields.DESIRED;
import static io.standby.robot.model.RobotFields.EPOCH;
import static io.standby.robot.model.RobotFields.FENCES;
import static io.standby.robot.model.RobotFields.ID;
import static io.standby.robot.model.RobotFields.INCARNATION;
import static io.standby.robot.model.RobotFields.NODE;
import static io.standby.robot.model.RobotFields.SEQ;
import static io.standby.robot.model.RobotFields.SLOT;
import static io.standby.robot.model.RobotFields.STATE;
import static io.standby.robot.model.RobotFields.STATUS_SEQ;
import static io.standby.robot.model.RobotFields.TARGET;
import static io.standby.robot.model.RobotFields.UPDATED;

/**
 * Every filter and update of the robot store, written once, as the documents sent to MongoDB:
 * {@link MongoRobotStore} sends them, and the simulation evaluates these very documents on its own
 * database, so a change to a rule here changes what both see. The conditions of a run's own operations
 * live with their records and are used the same way: {@link RobotToken#filter()} (the token) and
 * {@link RobotWrite#filter()}/{@link RobotWrite#update()} (a checkpoint or status write).
 *
 * <p>Filters on a robot's {@code _id} are flat ({@link FlatFilter}), so that a server finds the
 * documents by {@code _id}.
 */
public final class RobotRules {

    private RobotRules() {
    }

    /** The slot's robots (all, or those listed) below {@code epoch}. */
    public static Bson fenceFilter(String slotId, long epoch, Collection<String> onlyIds) {
        return onlyIds == null
                ? Filters.and(Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch))
                : FlatFilter.and(Filters.in(ID, onlyIds), Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch));
    }

    /** Raises the epoch, counts the fence, clears the runner and restarts both write sequences under the new token. */
    public static Bson fenceUpdate(long epoch) {
        return Updates.combine(Updates.set(EPOCH, epoch), Updates.inc(FENCES, 1L), Updates.set(NODE, null),
                Updates.set(SEQ, 0L), Updates.set(STATUS_SEQ, 0L), Updates.currentDate(UPDATED));
    }

    /**
     * A forced release's fence ({@code slots release}): the slot's robots below the epoch the release left
     * the slot at. Unlike {@link #fenceFilter}'s update it keeps the runner: the former owner may still run
     * them until it notices, so they move or go only through the handshake.
     */
    public static Bson revokeFilter(String slotId, long epoch) {
        return Filters.and(Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch));
    }

    /** Raises the epoch, which refuses every write under an earlier token. */
    public static Bson revokeUpdate(long epoch) {
        return Updates.combine(Updates.set(EPOCH, epoch), Updates.currentDate(UPDATED));
    }

    /**
     * The listed robots, fenced at this epoch, runnable ({@link Runnability#filter}) and run by nobody else. A
     * robot already taken at this epoch is this node's all the same, and taken again: every take counts as a
     * fence, so each run of a robot under one lease has a token of its own.
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
        return Updates.combine(Updates.set(NODE, node), Updates.set(STATE, RobotState.STARTING.name()),
                Updates.inc(FENCES, 1L), Updates.set(SEQ, 0L), Updates.set(STATUS_SEQ, 0L),
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

    /** A robot under the mover's token. */
    public static Bson handOverFilter(RobotToken token) {
        return token.filter();
    }

    /** To the slot it should go to, context and all; the epoch starts over, and the new slot's owner raises it. */
    public static Bson handOverUpdate(String toSlot) {
        return Updates.combine(
                Updates.set(SLOT, toSlot),
                Updates.set(EPOCH, 0L),
                Updates.set(NODE, null),
                Updates.set(STATE, RobotState.PENDING.name()),
                Updates.unset(TARGET),
                Updates.currentDate(UPDATED));
    }

    /** A robot whose removal was requested, under the token of the run that stopped it. */
    public static Bson deleteFilter(RobotToken token) {
        return FlatFilter.and(token.filter(), Filters.eq(DESIRED, Desired.REMOVED.value()));
    }
}
