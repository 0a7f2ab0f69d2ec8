package io.standby.robot.internal;

import com.mongodb.client.model.Filters;
import org.bson.conversions.Bson;

import static io.standby.robot.internal.RobotFields.EPOCH;
import static io.standby.robot.internal.RobotFields.ID;
import static io.standby.robot.internal.RobotFields.INCARNATION;
import static io.standby.robot.internal.RobotFields.SLOT;

/**
 * The fencing token of a run: this incarnation of the robot, in this slot, at this epoch of the slot.
 * Every write a run makes is conditional on it. A new owner of the slot raises the epoch, a move changes
 * the slot, and a removal and new {@code add} changes the incarnation: each rejects the run's later writes.
 *
 * @param incarnation null for a robot added before incarnations existed (its document has none)
 */
public record RobotToken(String robotId, String incarnation, String slotId, long epoch) {

    /** The filter that matches the robot's document only while it still carries this token. */
    public Bson filter() {
        return Filters.and(Filters.eq(ID, robotId), Filters.eq(INCARNATION, incarnation),
                Filters.eq(SLOT, slotId), Filters.eq(EPOCH, epoch));
    }

    @Override
    public String toString() {
        return robotId + "/" + incarnation + "@" + slotId + ":" + epoch;
    }
}
