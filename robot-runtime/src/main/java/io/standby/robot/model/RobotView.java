package io.standby.robot.model;

import java.time.Instant;
import org.bson.Document;

/**
 * A robot document as read. Decoded leniently: missing fields take their defaults, and a document whose fields have the
 * wrong types is skipped with one warning, so that a hand-edited robot cannot stop a node. Fields left out of a read's
 * projection come back as their defaults.
 *
 * @param incarnation unique per {@code add}: a robot removed and added again under the same id is a new incarnation,
 *     and the old one's runs can never write into the new document
 * @param epoch the fencing token of the robot's last runner: an epoch of the slot {@code slotId}
 * @param fences how many times the robot was fenced: part of its runner\'s token, so no token ever recurs
 * @param target the slot the robot is being moved to, or null
 */
public record RobotView(
        String id,
        String incarnation,
        String type,
        String slotId,
        int priority,
        double weight,
        Document config,
        Desired desired,
        RobotState state,
        String node,
        Document context,
        long epoch,
        long fences,
        int restarts,
        String lastError,
        String target,
        Instant updated) {

    /**
     * As JSON for scripts and the dashboard ({@code standby robot list -o json}, a node's {@code /status}): times in
     * ISO-8601, states by name; the field names are documented in docs/OUTPUT.md and stay stable. {@code updated} is
     * the robot document's last write by the database's clock: its runner's latest checkpoint or change of state, or an
     * operator's change.
     */
    public Document toDocument() {
        return new Document("id", id)
                .append("type", type)
                .append("slot", slotId)
                .append("target", moving() ? target : null)
                .append("state", state.name())
                .append("desired", desired.value())
                .append("node", node)
                .append("epoch", epoch)
                .append("priority", priority)
                .append("weight", weight)
                .append("restarts", restarts)
                .append("lastError", lastError)
                .append("updated", updated == null ? null : updated.toString())
                .append("incarnation", incarnation)
                .append("config", config)
                .append("context", context);
    }

    /** Whether the robot waits for a move to {@link #target()}. */
    public boolean moving() {
        return target != null && !target.equals(slotId);
    }
}
