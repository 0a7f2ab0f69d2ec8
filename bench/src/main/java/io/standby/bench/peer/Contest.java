package io.standby.bench.peer;

import io.standby.testing.ChildJvm;
import java.time.Duration;

/**
 * One way to hold a single slot: two contender processes on one database, and what the database says about who holds
 * it. A contest starts its contenders, replaces one that was killed, and closes them all.
 */
interface Contest extends AutoCloseable {

    /** Short name for the table, e.g. {@code standby 1s/3s}. */
    String name();

    /** The exact settings, for the table's notes. */
    String settings();

    /** How often the holder renews; the kill lands at a random point of one such period. */
    Duration renewal();

    /** Longer than any takeover can take by the settings. */
    Duration bound();

    /** Starts both contenders. */
    void start();

    /** Waits until one holds the slot and the other competes, and returns the holder. */
    ChildJvm holder(Duration atMost);

    /** The other contender than {@code holder}. */
    ChildJvm other(ChildJvm holder);

    /** Changes exactly when another holder takes the slot (an epoch, a lock time); -1 while nobody holds it. */
    long holding();

    /**
     * How the holder of {@code holding} took the slot, when the tool says (Standby's took-over event); null otherwise.
     */
    default String takenBy(long holding) {
        return null;
    }

    /** Starts a fresh contender in place of a dead one. */
    void replace(ChildJvm dead);

    /** What {@code contender} has sent so far. */
    CommandCount commands(ChildJvm contender);

    @Override
    void close();
}
