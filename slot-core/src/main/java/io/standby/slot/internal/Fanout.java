package io.standby.slot.internal;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Runs the releases of a graceful stop and returns when all are done. A node runs them in parallel, so that a stop with
 * many slots takes one round trip, not one per slot; tests run them one after another.
 */
@FunctionalInterface
public interface Fanout {

    void runAll(List<Runnable> tasks);

    Fanout SEQUENTIAL = tasks -> tasks.forEach(Runnable::run);

    /** One virtual thread per task. */
    Fanout PARALLEL = tasks -> {
        if (tasks.size() == 1) {
            tasks.getFirst().run();
            return;
        }
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            tasks.forEach(threads::submit);
        }
    };
}
