package io.standby.robot.internal;

import io.standby.slot.Durations;
import io.standby.slot.MonotonicClock;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the robot sync loop when a robot of this node's slots changes the way only an operator or a hand-over changes
 * it ({@link RobotChanges}), through one change stream kept open by one virtual thread.
 *
 * <p>It is only an accelerator, never needed for correctness: the sync loop re-reads a slot's robots when the slot's
 * {@code changes} moved (which every operator command and hand-over raises), and all of them every 30 s
 * ({@code SlotRuns.RESYNC}). A missed event therefore costs at most a poll when its change also raised {@code changes},
 * and at most 30 s when it did not (an edit by hand). Hence:
 *
 * <ul>
 *   <li>each time a stream opens, the loop is woken once: changes may have gone unseen while none was open;
 *   <li>a failed stream is reopened after a backoff (0.5 s, doubling up to 30 s, back to 0.5 s once a stream has run
 *       for 10 s), resuming after the last event seen, or afresh where the server no longer has that point. An outage
 *       logs one warning, its retries log at DEBUG;
 *   <li>where the database has no change streams (a standalone server, the embedded one included) it says so once and
 *       never asks for one.
 * </ul>
 *
 * Started once, closed once; {@link #slots} may be called from any thread at any time, before or after {@link #start}.
 */
public final class RobotChangeWatcher implements AutoCloseable {

    /** What the watcher is doing. */
    public enum Status {
        /** Not started. */
        LATENT,
        /** Finding out whether the database has change streams. */
        DECIDING,
        /** The database has none: the sync loop's poll is all there is. Final until closed. */
        UNAVAILABLE,
        /** No slots to watch, so no stream. */
        IDLE,
        /** A stream is open. */
        WATCHING,
        /** The last attempt failed; waiting to try again. */
        RETRYING,
        CLOSED
    }

    /** Pauses the watcher's thread; tests pass one that does not sleep. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    static final Duration FIRST_RETRY = Duration.ofMillis(500);
    static final Duration MAX_RETRY = Duration.ofSeconds(30);
    /** A stream that has run this long has ended the outage: the next failure starts a new one. */
    static final Duration PROVEN = Duration.ofSeconds(10);

    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(RobotChangeWatcher.class);

    private record Watched(Set<String> slots, long version) {}

    private final RobotChangeSource source;
    private final Duration poll;
    private final Runnable wake;
    private final MonotonicClock clock;
    private final Sleeper sleeper;
    private final AtomicReference<Status> status = new AtomicReference<>(Status.LATENT);
    private final AtomicReference<Watched> watched = new AtomicReference<>(new Watched(Set.of(), 0));
    private final Semaphore watchedChanged = new Semaphore(0);
    private volatile Thread thread;

    // Only the watcher's thread touches these.
    private final Backoff backoff = new Backoff(FIRST_RETRY, MAX_RETRY);
    private boolean failing;

    RobotChangeWatcher(RobotChangeSource source, Duration poll, Runnable wake, MonotonicClock clock, Sleeper sleeper) {
        this.source = Objects.requireNonNull(source, "source");
        this.poll = Objects.requireNonNull(poll, "poll");
        this.wake = Objects.requireNonNull(wake, "wake");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    /**
     * A watcher of the robots in {@code database}, not started.
     *
     * @param poll how often the sync loop re-reads robots anyway (for the log line when there are no change streams)
     * @param wake wakes the sync loop; called on the watcher's thread, so it must not block
     */
    public static RobotChangeWatcher on(StandbyDatabase database, Duration poll, Runnable wake) {
        return on(database, poll, wake, MonotonicClock.system());
    }

    /** The same, reading its retry deadlines on the node's {@code clock}. */
    public static RobotChangeWatcher on(StandbyDatabase database, Duration poll, Runnable wake, MonotonicClock clock) {
        return new RobotChangeWatcher(
                new MongoRobotChangeSource(database.client(), database.database()), poll, wake, clock, Thread::sleep);
    }

    /** Starts the watcher's thread. @throws IllegalStateException if started before or closed */
    public RobotChangeWatcher start() {
        if (!status.compareAndSet(Status.LATENT, Status.DECIDING)) {
            throw new IllegalStateException("A robot change watcher can be started only once");
        }
        thread = Thread.ofVirtual().name("standby-robot-watch").start(this::run);
        return this;
    }

    /**
     * StandbyLinks the robots of these slots from now on. A new set reopens the stream with its pipeline, resuming
     * where the old stream stopped reading, so a change the old one had not read yet arrives if the new set wants it;
     * one the old stream read past and dropped (in a slot only the new set has) is covered by the wake every open
     * gives. An empty set closes the stream. The change takes effect when the stream's current read returns: within the
     * server's await time, about a second.
     */
    public void slots(Set<String> slotIds) {
        Set<String> slots = Set.copyOf(slotIds);
        Watched before = watched.getAndUpdate(w -> w.slots().equals(slots) ? w : new Watched(slots, w.version() + 1));
        if (!before.slots().equals(slots)) {
            watchedChanged.release();
        }
    }

    public Status status() {
        return status.get();
    }

    /** Stops the thread, interrupting a wait or a stream's read, and waits for it to end. Idempotent. */
    @Override
    public void close() {
        if (status.getAndSet(Status.CLOSED) == Status.CLOSED) {
            return;
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                if (!t.join(CLOSE_WAIT)) {
                    log.warn("The robot change watcher did not stop within {}", Durations.format(CLOSE_WAIT));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the watcher's thread is still alive; for tests. */
    boolean running() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    private void run() {
        if (decided()) {
            watch();
        }
    }

    /** Whether to watch at all: false where the database has no change streams, or once closed. */
    private boolean decided() {
        while (!closed()) {
            try {
                if (source.offersChangeStreams()) {
                    return true;
                }
                enter(Status.UNAVAILABLE);
                log.info(
                        "No change streams on a standalone server; robots are re-read every {}",
                        Durations.format(poll));
                return false;
            } catch (RuntimeException e) {
                if (closed() || !retryAfter("Cannot tell yet whether the database has change streams", e)) {
                    return false;
                }
            }
        }
        return false;
    }

    private void watch() {
        BsonDocument resumeAfter = null;
        while (!closed()) {
            Watched target = watched.get();
            if (target.slots().isEmpty()) {
                enter(Status.IDLE);
                if (!awaitOtherSlots(target)) {
                    return;
                }
                continue;
            }
            try (RobotChangeSource.Stream stream = source.open(RobotChanges.pipeline(target.slots()), resumeAfter)) {
                enter(Status.WATCHING);
                long opened = clock.nanoTime();
                log.debug("Watching the robots of {}{}", target.slots(), resumeAfter == null ? "" : ", resumed");
                wake.run();
                while (!closed() && watched.get().version() == target.version()) {
                    BsonDocument change = stream.tryNext();
                    BsonDocument token = stream.resumeToken();
                    if (token != null) {
                        resumeAfter = token;
                    }
                    if (change != null) {
                        log.debug("Robot changed: {}", change);
                        wake.run();
                    }
                    if (failing && clock.nanoTime() - opened >= PROVEN.toNanos()) {
                        failing = false;
                        backoff.reset();
                        log.info("The change stream on robots is open again");
                    }
                }
            } catch (RuntimeException e) {
                if (closed()) {
                    return;
                }
                ChangeStreamFailure failure = ChangeStreamFailure.of(e);
                if (failure == ChangeStreamFailure.UNSUPPORTED) {
                    enter(Status.UNAVAILABLE);
                    log.info(
                            "This database has no change streams (it answered: {}); robots are re-read every {}",
                            e.getMessage(),
                            Durations.format(poll));
                    return;
                }
                if (failure == ChangeStreamFailure.RESUME_POINT_LOST) {
                    resumeAfter = null;
                }
                if (!retryAfter(
                        failure == ChangeStreamFailure.RESUME_POINT_LOST
                                ? "The change stream on robots cannot resume; starting it afresh"
                                : "The change stream on robots failed",
                        e)) {
                    return;
                }
            }
        }
    }

    /** Waits until {@link #slots} changes the set; false once closed. */
    private boolean awaitOtherSlots(Watched seen) {
        try {
            while (!closed() && watched.get().version() == seen.version()) {
                watchedChanged.acquire();
            }
            return !closed();
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Logs the failure (the first of an outage at WARN) and waits out the backoff; false once closed. */
    private boolean retryAfter(String what, RuntimeException e) {
        enter(Status.RETRYING);
        Duration wait = backoff.next();
        if (failing) {
            log.debug("{}; retrying in {}: {}", what, Durations.format(wait), e.toString());
        } else {
            failing = true;
            log.warn(
                    "{}; retrying in {}, and robots are re-read every {} meanwhile: {}",
                    what,
                    Durations.format(wait),
                    Durations.format(poll),
                    e.toString());
        }
        try {
            sleeper.sleep(wait);
            return !closed();
        } catch (InterruptedException interrupted) {
            return false;
        }
    }

    private void enter(Status next) {
        status.updateAndGet(now -> now == Status.CLOSED ? Status.CLOSED : next);
    }

    private boolean closed() {
        return status.get() == Status.CLOSED;
    }
}
