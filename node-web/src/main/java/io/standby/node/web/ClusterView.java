package io.standby.node.web;

import io.standby.robot.admin.ClusterStatus;
import io.standby.slot.Durations;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The cluster as this node last read it, for {@code /status} and the dashboard. It is read again at most once per
 * {@link #MAX_AGE}, however many browsers ask, on the robots' connection, so that viewers never delay the protocol's
 * renewals; and a viewer waits at most {@link #PATIENCE} for a reading, so that a node cut off from the database still
 * answers at once, saying so.
 */
final class ClusterView {

    static final Duration MAX_AGE = Duration.ofSeconds(1);
    static final Duration PATIENCE = Duration.ofSeconds(2);
    /** How many of the newest events a reading carries. */
    static final int EVENTS = 50;
    /** How many robots a reading lists for the dashboard, at most: the page says when there are more. */
    static final int ROBOTS = 1000;

    /** A reading, or why there is none; {@code readNanos} on {@link System#nanoTime()}. */
    record Reading(ClusterStatus status, String error, long readNanos) {}

    private final Supplier<ClusterStatus> read;
    private Reading last;
    private CompletableFuture<Reading> inFlight;

    /** @param read one reading of the cluster, e.g. {@code () -> ClusterStatus.read(db, EVENTS)} */
    ClusterView(Supplier<ClusterStatus> read) {
        this.read = read;
    }

    Reading get() {
        CompletableFuture<Reading> next;
        synchronized (this) {
            if (last != null && System.nanoTime() - last.readNanos() < MAX_AGE.toNanos()) {
                return last;
            }
            if (inFlight == null) {
                CompletableFuture<Reading> started =
                        CompletableFuture.supplyAsync(this::readNow, Thread::startVirtualThread);
                inFlight = started;
                started.thenAccept(this::completed);
            }
            next = inFlight;
        }
        try {
            return next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return new Reading(
                    null,
                    "cannot read the cluster: no answer from the database within " + Durations.format(PATIENCE),
                    System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reading(null, "cannot read the cluster: interrupted", System.nanoTime());
        } catch (ExecutionException e) {
            // readNow catches what the read throws; this is a bug, said as it is.
            return new Reading(null, "cannot read the cluster: " + e.getCause(), System.nanoTime());
        }
    }

    private synchronized void completed(Reading reading) {
        last = reading;
        inFlight = null;
    }

    private Reading readNow() {
        try {
            return new Reading(read.get(), null, System.nanoTime());
        } catch (RuntimeException e) {
            return new Reading(null, "cannot read the cluster: " + e.getMessage(), System.nanoTime());
        }
    }
}
