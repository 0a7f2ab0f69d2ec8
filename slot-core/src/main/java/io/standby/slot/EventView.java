package io.standby.slot;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One event of the {@code events} collection, with its time by the database's clock.
 *
 * @param id the event's own id
 * @param type of a slot: claimed, took-over, took-back, released or lost; of a robot's run on a node: robot-started,
 *     robot-restarting, robot-failed, robot-stopped, robot-finished, robot-released, robot-moved, robot-removed or
 *     robot-lost
 * @param node the node it happened to
 * @param robot for a robot's event: the robot
 * @param from for a take-over: the former owner
 * @param heartbeat for a take-over: the former owner's last heartbeat
 * @param reason for a loss: why (taken, revoked, fenced, vanished)
 * @param error for a robot that failed or restarts: its error
 * @param to for a robot that moved: its new slot
 * @param how for a take-over: {@code expired} (the lease ran out), {@code owner-gone} (the owner's process was found
 *     gone before) or {@code link} (a watch link to the owner died before); {@code evidence} says how
 * @param evidence for a take-over: what showed the slot could be taken
 */
public record EventView(
        String id,
        Instant time,
        String type,
        String slot,
        long epoch,
        String node,
        String robot,
        String from,
        Instant heartbeat,
        String reason,
        String error,
        String to,
        String how,
        String evidence) {

    /** For a take-over: how long the slot went without a heartbeat, from the former owner's last one to the claim. */
    public Optional<Duration> unowned() {
        return heartbeat == null ? Optional.empty() : Optional.of(Duration.between(heartbeat, time));
    }
}
