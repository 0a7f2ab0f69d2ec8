package io.standby.robot.model;

import static io.standby.robot.model.RobotFields.EPOCH;
import static io.standby.robot.model.RobotFields.FENCES;
import static io.standby.robot.model.RobotFields.ID;
import static io.standby.robot.model.RobotFields.INCARNATION;
import static io.standby.robot.model.RobotFields.SLOT;

import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;

/**
 * The fencing token of a run: this incarnation of the robot, in this slot, at this epoch of the slot, after this many
 * fences. Every operation a run, or its slot's owner, makes on the robot is conditional on it. A new owner of the slot
 * raises the epoch, a move changes the slot, a removal and new {@code add} changes the incarnation, and every fence
 * raises the count: each rejects the run's later operations, late copies included. A token never comes back: the count
 * only grows, so a robot that leaves a slot and returns under the same lease gets a new one.
 *
 * @param incarnation null for a robot added before incarnations existed (its document has none)
 */
public record RobotToken(String robotId, String incarnation, String slotId, long epoch, long fences) {

    /** The token a robot carries as read. */
    public static RobotToken of(RobotView robot) {
        return new RobotToken(robot.id(), robot.incarnation(), robot.slotId(), robot.epoch(), robot.fences());
    }

    /**
     * The filter that matches the robot's document only while it still carries this token: a new document each call,
     * flat ({@link FlatFilter}), which a caller may add conditions on other fields to.
     */
    public BsonDocument filter() {
        // Written out rather than built with Filters.eq: every robot write carries one, 10,000 at a large start,
        // and encoding the builders' filters took a quarter of the writer thread's time (BENCHMARKS, Scale).
        return new BsonDocument(ID, new BsonString(robotId))
                .append(INCARNATION, incarnation == null ? BsonNull.VALUE : new BsonString(incarnation))
                .append(SLOT, new BsonString(slotId))
                .append(EPOCH, new BsonInt64(epoch))
                .append(FENCES, new BsonInt64(fences));
    }

    @Override
    public String toString() {
        return robotId + "/" + incarnation + "@" + slotId + ":" + epoch + "." + fences;
    }
}
