package io.standby.robot.internal;

import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.standby.robot.model.RobotFields;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bson.conversions.Bson;

/**
 * Which changes to the robots concern a node's slots: the change-stream pipeline a node watches.
 *
 * <p>A node must hear about what it cannot otherwise learn before its next poll: an operator adding, moving, stopping,
 * starting or removing a robot of one of its slots, and a robot handed over into one of its slots. It must not hear
 * about what runners write all the time (checkpoints, status), or every checkpoint on any node would wake every node.
 * Operators always set the whole {@code request} subdocument ({@code {slot, at}}, with the slot the robot was in), and
 * a hand-over sets {@code slotId}; runners set neither. So the stream passes only:
 *
 * <ul>
 *   <li>an insert or replace whose document is in one of the slots;
 *   <li>an update that set {@code slotId} to one of the slots (a robot moved in);
 *   <li>an update that set {@code request} with {@code request.slot} one of the slots.
 * </ul>
 *
 * Deletes are not passed: a removal is requested through {@code request} first.
 *
 * <p>An update's {@code updateDescription.updatedFields} names each field as the update set it: a {@code $set} of the
 * whole {@code request} shows up as {@code {request: {slot, at}}}, which the dotted path {@code request.slot} matches;
 * a {@code $set} of {@code 'request.slot'} alone would show up under the literal key {@code "request.slot"}, which no
 * dotted path matches. Hence the rule that operators set the whole subdocument.
 *
 * <p>Events are cut down to their resume token ({@code _id}, which the server refuses to let a pipeline drop or
 * change), operation type and document key, so a burst of changes costs little to ship.
 */
public final class RobotChanges {

    /** The operator's last command on a robot: {@code {slot, at}}. */
    /** The slot a robot was in when the operator changed it. */
    static final String REQUEST_SLOT = RobotFields.REQUEST + "." + RobotFields.REQUEST_SLOT;

    private static final String OPERATION = "operationType";
    private static final String FULL_DOCUMENT = "fullDocument.";
    private static final String UPDATED = "updateDescription.updatedFields.";

    private RobotChanges() {}

    /** The whole pipeline: the {@link #match} stage, then a projection to the resume token, type and key. */
    public static List<Bson> pipeline(Set<String> slotIds) {
        return List.of(match(slotIds), Aggregates.project(Projections.include("_id", OPERATION, "documentKey")));
    }

    /**
     * The {@code $match} stage that passes the events concerning {@code slotIds}.
     *
     * @throws IllegalArgumentException if {@code slotIds} is empty: a node without slots watches nothing
     */
    public static Bson match(Set<String> slotIds) {
        if (slotIds.isEmpty()) {
            throw new IllegalArgumentException("no slots to watch");
        }
        // Sorted, so that the same set always gives the same pipeline (and log line).
        List<String> slots = List.copyOf(new TreeSet<>(slotIds));
        return Aggregates.match(Filters.or(
                Filters.and(
                        Filters.in(OPERATION, "insert", "replace"),
                        Filters.in(FULL_DOCUMENT + RobotFields.SLOT, slots)),
                Filters.and(Filters.eq(OPERATION, "update"), Filters.in(UPDATED + RobotFields.SLOT, slots)),
                Filters.and(Filters.eq(OPERATION, "update"), Filters.in(UPDATED + REQUEST_SLOT, slots))));
    }
}
