package io.standby.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Percentiles by the nearest-rank method, over a list of measurements in milliseconds. */
public record Stats(List<Long> sorted) {

    public Stats {
        List<Long> copy = new ArrayList<>(sorted);
        Collections.sort(copy);
        sorted = List.copyOf(copy);
    }

    public static Stats of(List<Long> values) {
        return new Stats(values);
    }

    public int count() {
        return sorted.size();
    }

    /** The smallest value with at least {@code p} percent of the values at or below it. */
    public long percentile(double p) {
        if (sorted.isEmpty()) {
            throw new IllegalStateException("no measurements");
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    public long p50() {
        return percentile(50);
    }

    public long p99() {
        return percentile(99);
    }

    public long max() {
        return sorted.getLast();
    }

    public long min() {
        return sorted.getFirst();
    }

    /** {@code n=30 p50 376 ms, p99 601 ms, max 601 ms}, or {@code n=0} when there is nothing. */
    public String summary() {
        if (sorted.isEmpty()) {
            return "n=0";
        }
        return String.format(Locale.ROOT, "n=%d p50 %d ms, p99 %d ms, max %d ms", count(), p50(), p99(), max());
    }
}
