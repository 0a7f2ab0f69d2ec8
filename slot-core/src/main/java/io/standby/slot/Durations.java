package io.standby.slot;

import java.time.Duration;

/** How Standby writes durations, in messages, logs and tables: the one place that formats them. */
public final class Durations {

    private Durations() {}

    /**
     * Exactly, in the largest whole unit: {@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h}; also how a command line
     * accepts them.
     */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    /** Roughly, for ages in a table: {@code 0.7s}, {@code 12s}, {@code 5m}, {@code 2h}; negative ages show as 0. */
    public static String approximately(Duration d) {
        long ms = Math.max(0, d.toMillis());
        if (ms < 10_000) {
            return String.format("%.1fs", ms / 1000.0);
        }
        if (ms < 600_000) {
            return ms / 1000 + "s";
        }
        return ms < 7_200_000 ? ms / 60_000 + "m" : ms / 3_600_000 + "h";
    }
}
