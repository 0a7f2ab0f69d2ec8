package io.standby.bench;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting on a condition with a deadline. */
public final class Waits {

    private Waits() {}

    /** Polls every {@code every} until {@code done}, or fails naming {@code what} after {@code atMost}. */
    public static void until(String what, Duration atMost, Duration every, BooleanSupplier done) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": not within " + atMost.toMillis() + " ms");
            }
            Bench.sleep(every);
        }
    }
}
