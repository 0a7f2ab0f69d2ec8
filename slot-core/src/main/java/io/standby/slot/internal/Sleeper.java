package io.standby.slot.internal;

import java.time.Duration;

/** Pauses the calling thread; tests pass one that does not sleep. */
@FunctionalInterface
public interface Sleeper {

    void sleep(Duration duration) throws InterruptedException;

    /** The thread really sleeps. */
    Sleeper THREAD = duration -> Thread.sleep(duration.toMillis());
}
