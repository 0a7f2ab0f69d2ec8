package io.standby.robot;

import java.time.Duration;
import org.bson.Document;
import org.slf4j.Logger;

/** What a running robot can see and do. Thread-safe, but meant for the robot's own thread. */
public interface RobotContext {

    String robotId();

    /** The slot the robot runs under on this node. */
    String slotId();

    /**
     * The fencing token of this run: the slot's epoch. It only grows from one owner to the next, so a robot can build
     * idempotency keys for side effects outside MongoDB from {@code (robotId, epoch, seq)}.
     */
    long epoch();

    /** The robot's configuration (a copy). */
    Document config();

    /** The state of the last accepted {@link #checkpoint}, or an empty document (a copy). */
    Document state();

    /**
     * Persists {@code state} as the robot's context, durably (write concern majority), and returns once the database
     * acknowledged it. The write is conditional on this run's epoch: once another node owns the slot, it is rejected.
     *
     * @throws FencedException if this run may no longer write (the slot was lost, or the robot was stopped or moved);
     *     the robot must return at once
     * @throws IllegalArgumentException if the database refuses this state (e.g. larger than 16 MB); the robot's other
     *     writes and the other robots are not affected
     */
    void checkpoint(Document state);

    /** True once the robot should finish: checkpoint if needed and return from {@link Robot#run}. */
    boolean stopRequested();

    /**
     * Sleeps, waking early when a stop is requested or the thread is interrupted.
     *
     * @return true if the full duration passed and the robot should go on; false if it should return
     */
    boolean sleep(Duration duration);

    /** A logger whose MDC carries {@code robot} (the id) and {@code slot}. */
    Logger log();
}
