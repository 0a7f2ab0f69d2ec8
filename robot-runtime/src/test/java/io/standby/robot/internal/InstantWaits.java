package io.standby.robot.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Real virtual threads whose timed waits take no time: a wait returns at once, ready or "timed out", and records how
 * long it would have lasted. So a test sees a run's backoffs without waiting them out. Not for the write batcher, whose
 * idle wait would then spin.
 */
final class InstantWaits implements RunThreads {

    /** Every wait's duration, in order. */
    final List<Duration> waits = new CopyOnWriteArrayList<>();

    @Override
    public Worker start(String name, Runnable body) {
        return VIRTUAL.start(name, body);
    }

    @Override
    public Signal signal() {
        return new Signal() {
            @Override
            public boolean await(BooleanSupplier ready, Duration atMost) throws InterruptedException {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                waits.add(atMost);
                return ready.getAsBoolean();
            }

            @Override
            public void wakeAll() {}
        };
    }

    @Override
    public <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
        return VIRTUAL.get(future);
    }

    @Override
    public <T> T get(CompletableFuture<T> future, Duration atMost)
            throws InterruptedException, ExecutionException, TimeoutException {
        return VIRTUAL.get(future, atMost);
    }
}
