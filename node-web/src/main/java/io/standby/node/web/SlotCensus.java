package io.standby.node.web;

import io.standby.slot.SlotState;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The cluster's slots by state, as this node last read them, for the {@link StandbyMeters#CLUSTER_SLOTS} gauges: no
 * node's own meters can tell that a slot has no owner, since nobody counts a slot nobody holds. The database counts
 * them ({@link io.standby.slot.SlotTable#countByState()}: one aggregation, a reply of a few hundred bytes whatever the
 * number of slots, so a scrape costs a node one command, not a read of every slot). Read when scraped, at most once per
 * {@link #MAX_AGE} for the four gauges together, and waited for at most {@link #PATIENCE}, so that a scrape of a node
 * cut off from the database still answers in time; the counts are then NaN (no number), not stale.
 */
final class SlotCensus {

    static final Duration MAX_AGE = Duration.ofSeconds(1);
    static final Duration PATIENCE = Duration.ofSeconds(2);

    /** {@code counts} null when the read failed; {@code readNanos} on {@link System#nanoTime()}. */
    private record Reading(Map<SlotState, Long> counts, long readNanos) {}

    private final Supplier<Map<SlotState, Long>> read;
    private Reading last;
    private CompletableFuture<Reading> inFlight;

    /** @param read the counts, e.g. {@code () -> new SlotTable(node.robotDatabase()).countByState()} */
    SlotCensus(Supplier<Map<SlotState, Long>> read) {
        this.read = read;
    }

    /** How many slots are in this state, or NaN when the last read failed or took longer than {@link #PATIENCE}. */
    double count(SlotState state) {
        Map<SlotState, Long> counts = reading().counts();
        return counts == null ? Double.NaN : counts.getOrDefault(state, 0L);
    }

    private Reading reading() {
        CompletableFuture<Reading> next;
        synchronized (this) {
            if (last != null && System.nanoTime() - last.readNanos() < MAX_AGE.toNanos()) {
                return last;
            }
            next = inFlight;
            if (next == null) {
                next = CompletableFuture.supplyAsync(this::readNow, Thread::startVirtualThread);
                // Set before the callback: a read done already runs completed() here, at once, and clears it.
                inFlight = next;
                next.thenAccept(this::completed);
            }
        }
        try {
            return next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reading(null, System.nanoTime());
        } catch (TimeoutException | ExecutionException e) {
            return new Reading(null, System.nanoTime());
        }
    }

    private synchronized void completed(Reading reading) {
        last = reading;
        inFlight = null;
    }

    private Reading readNow() {
        try {
            return new Reading(Map.copyOf(read.get()), System.nanoTime());
        } catch (RuntimeException e) {
            return new Reading(null, System.nanoTime());
        }
    }
}
