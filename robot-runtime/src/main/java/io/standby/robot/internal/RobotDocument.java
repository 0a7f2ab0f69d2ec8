package io.standby.robot.internal;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import io.standby.robot.Desired;
import io.standby.robot.RobotState;
import org.bson.Document;

/**
 * A robot as stored in the {@code robots} collection, readable in mongosh:
 * {@code {_id, type, slotId, priority, weight, config, desired, state, node, context, epoch, restarts,
 * lastError, target, updated}}.
 *
 * <p>{@code epoch} is the fencing token of the last runner that took the robot: the epoch of the slot
 * named in {@code slotId} at that time. A runner's writes are conditional on {@code (slotId, epoch)};
 * a new owner of the slot raises {@code epoch} before it starts the robot, which rejects every later
 * write of the former runner. {@code target} is a requested move.
 */
@Entity(value = RobotFields.COLLECTION, useDiscriminator = false)
public class RobotDocument {

    @Id
    String id;
    String type;
    String slotId;
    int priority;
    double weight = 1;
    Document config = new Document();
    String desired = Desired.RUNNING.value();
    String state = RobotState.PENDING.name();
    String node;
    Document context = new Document();
    long epoch;
    int restarts;
    String lastError;
    String target;

    RobotDocument() {
        // for Morphia
    }

    /** A new robot, pending until the owner of its slot starts it. */
    public static RobotDocument create(String id, String type, String slotId, int priority, double weight, Document config) {
        RobotDocument robot = new RobotDocument();
        robot.id = id;
        robot.type = type;
        robot.slotId = slotId;
        robot.priority = priority;
        robot.weight = weight;
        robot.config = config;
        return robot;
    }
}
