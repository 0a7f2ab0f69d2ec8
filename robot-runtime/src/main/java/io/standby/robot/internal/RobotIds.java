package io.standby.robot.internal;

import java.util.Optional;

/**
 * The registry of robot ids, {@code robotIds}: one entry per id, {@code {_id: robotId, incarnation, state: reserving |
 * bound, at}}, in a collection whose {@code _id} is unique in the whole cluster (unsharded, or sharded on {@code _id}),
 * whatever the shard key of {@code robots}. An add holds the id here before its robot exists anywhere, which is what
 * makes one id one robot when {@code robots} keeps {@code _id} unique per shard only ({@link RobotIdRules} has the
 * rules, and {@code RobotTable.add} the protocol).
 *
 * <p>Every write is conditional on the entry as read, and {@code at} is the server's clock; nothing here ever deletes
 * or replaces an entry unless the caller read it stale.
 */
public interface RobotIds {

    /** Where an add is with its id. */
    enum State {
        /** An add holds the id and is inserting its robot, which is not yet startable. */
        RESERVING,
        /** The robot of {@code incarnation} is added, or was, until its document is deleted. */
        BOUND;

        /** The stored form: {@code reserving} or {@code bound}. */
        public String value() {
            return name().toLowerCase();
        }
    }

    /** One entry as read. */
    record Entry(String id, String incarnation, State state) {}

    /**
     * A new incarnation for an add: unique, so a robot removed and added again is a new robot. The Mongo registry mints
     * an ObjectId; the simulation numbers them, so that a run replays.
     */
    String newIncarnation();

    /** Holds {@code id} for {@code incarnation}, reserving: false if an entry for the id exists. */
    boolean reserve(String id, String incarnation);

    /** The entry of {@code id}, if any. */
    Optional<Entry> get(String id);

    /**
     * Replaces {@code stale} exactly as read with a reservation for {@code incarnation}: a bound entry whose robot is
     * gone, or a reservation older than {@link RobotIdRules#RESERVATION} by the server's clock. False if the entry is
     * no longer as read, or a reservation is still young.
     */
    boolean takeOver(Entry stale, String incarnation);

    /** Reserving to bound, for {@code incarnation}: false if the reservation was taken over meanwhile. */
    boolean bind(String id, String incarnation);

    /** Deletes the entry if it is still exactly {@code entry}: an add gives up, or its robot is removed. */
    void release(Entry entry);
}
