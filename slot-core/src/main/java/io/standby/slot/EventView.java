package io.standby.slot;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One event of the {@code events} collection, with its time by the database's clock.
 *
 * @param id        the event's own id
 * @param type      claimed, took-over, took-back, released or lost
 * @param node      the node it happened to
 * @param from      for a take-over: the former owner
 * @param heartbeat for a take-over: the former owner's last heartbeat
 * @param reason    for a loss: why (taken, revoked, fenced, vanished)
 */
public record EventView(String id, Instant time, String type, String slot, long epoch, String node, String from,
                        Instant heartbeat, String reason) {

    /** For a take-over: how long the slot went without a heartbeat, from the former owner's last one to the claim. */
    public Optional<Duration> unowned() {
        return heartbeat == null ? Optional.empty() : Optional.of(Duration.between(heartbeat, time));
    }
}
