package io.standby.node.web;

import io.standby.slot.SlotState;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The cluster's slots by state, as this node last read them, for the {@link StandbyMeters#CLUSTER_SLOTS} gauges: no
 * node's own meters can tell that a slot has no owner, since nobody counts a slot nobody holds. Read when scraped, at
 * most once per {@link #MAX_AGE} for the four gauges together, and waited for at most {@link #PATIENCE}, so that a
 * scrape of a node cut off from the database still answers in time; the counts are then NaN (no number), not stale.
 */
final class SlotCensus {

    static final Duration MAX_AGE = Duration.ofSeconds(1);
    static final Duration PATIENCE = Duration.ofSeconds(2);

    /** {@code counts} null when the read failed; {@code readNanos} on {@link System#nanoTime()}. */
    private record Reading(Map<SlotState, Integer> counts, long readNanos) {}

    private final Supplier<List<SlotView>> read;
    private Reading last;
    private CompletableFuture<Reading> inFlight;

    /** @param read the slots, e.g. {@code () -> new SlotTable(node.robotDatabase()).list()} */
    SlotCensus(Supplier<List<SlotView>> read) {
        this.read = read;
    }

    /** How many slots are in this state, or NaN when the last read failed or took longer than {@link #PATIENCE}. */
    double count(SlotState state) {
        Map<SlotState, Integer> counts = reading().counts();
        return counts == null ? Double.NaN : counts.getOrDefault(state, 0);
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
            Map<SlotState, Integer> counts = new EnumMap<>(SlotState.class);
            for (SlotView slot : read.get()) {
                counts.merge(slot.state(), 1, Integer::sum);
            }
            return new Reading(counts, System.nanoTime());
        } catch (RuntimeException e) {
            return new Reading(null, System.nanoTime());
        }
    }
}
