package io.standby.robot.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Where the runtime's own threads come from and how they wait: the robots' runs and the write batcher. A node uses
 * {@link #VIRTUAL}: virtual threads, locks and the system's monotonic clock. The simulation gives its own, which runs
 * these threads one at a time on virtual time, so that the real runs, contexts, statuses and batcher are exercised step
 * by step from a seed.
 */
public interface RunThreads {

    /** Virtual threads that wait on locks, timed by {@link System#nanoTime()}. */
    RunThreads VIRTUAL = new RunThreads() {
        @Override
        public Worker start(String name, Runnable body) {
            Thread thread = Thread.ofVirtual().name(name).start(body);
            return new Worker() {
                @Override
                public boolean isAlive() {
                    return thread.isAlive();
                }

                @Override
                public void interrupt() {
                    thread.interrupt();
                }

                @Override
                public boolean join(Duration atMost) throws InterruptedException {
                    return thread.join(atMost);
                }
            };
        }

        @Override
        public Signal signal() {
            ReentrantLock lock = new ReentrantLock();
            Condition changed = lock.newCondition();
            return new Signal() {
                @Override
                public boolean await(BooleanSupplier ready, Duration atMost) throws InterruptedException {
                    long left = atMost.toNanos();
                    lock.lock();
                    try {
                        while (!ready.getAsBoolean()) {
                            if (left <= 0) {
                                return false;
                            }
                            left = changed.awaitNanos(left);
                        }
                        return true;
                    } finally {
                        lock.unlock();
                    }
                }

                @Override
                public void wakeAll() {
                    lock.lock();
                    try {
                        changed.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
            };
        }

        @Override
        public <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
            return future.get();
        }

        @Override
        public <T> T get(CompletableFuture<T> future, Duration atMost)
                throws InterruptedException, ExecutionException, TimeoutException {
            return future.get(atMost.toNanos(), TimeUnit.NANOSECONDS);
        }
    };

    /** Starts {@code body} on a thread of its own. */
    Worker start(String name, Runnable body);

    /** A condition that threads wait for, woken by whoever changes what it reads. */
    Signal signal();

    /** Waits for {@code future}, as {@link CompletableFuture#get()} does. */
    <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException;

    /** Waits for {@code future} up to {@code atMost}, as {@link CompletableFuture#get(long, TimeUnit)} does. */
    <T> T get(CompletableFuture<T> future, Duration atMost)
            throws InterruptedException, ExecutionException, TimeoutException;

    /** A thread started by {@link #start}. */
    interface Worker {
        boolean isAlive();

        void interrupt();

        /** Waits up to {@code atMost} for the thread to end; true if it did. */
        boolean join(Duration atMost) throws InterruptedException;
    }

    /** What a thread waits for: call {@link #wakeAll()} after every change that may make a waiter ready. */
    interface Signal {
        /**
         * Waits until {@code ready} says true (checked first, and again after every wake), or {@code atMost} passed.
         *
         * @return true if ready, false if the time ran out
         * @throws InterruptedException if the thread is interrupted while it waits; its flag is cleared
         */
        boolean await(BooleanSupplier ready, Duration atMost) throws InterruptedException;

        void wakeAll();
    }
}
