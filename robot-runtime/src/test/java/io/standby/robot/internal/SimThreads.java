package io.standby.robot.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The runtime's threads of one simulated process ({@link RunThreads}): the real {@code RobotRun}s and the real
 * {@code WriteBatcher} run on threads of their own, but one thread at a time, handing a baton back and forth with the
 * simulation's loop, so that a seed still replays exactly. A thread runs only inside one of its node's events (so a
 * paused process's threads wait, and a killed one's never run again); it runs until it waits, and its waits are on the
 * simulation's clock, at its node's clock rate. A wake takes a moment, as a thread's scheduling does.
 *
 * <p>Kill: every thread of the process is resumed once more and unwinds at once ({@link Killed} thrown from its wait,
 * without waiting again); the database refuses whatever it still tries, since its process is gone.
 */
final class SimThreads implements RunThreads {

    /** Thrown in a thread of a killed process at its next wait: the thread is gone. */
    static final class Killed extends Error {
        Killed() {
            super("the process was killed", null, false, false);
        }
    }

    /** The semaphore each thread waits on for the baton: a fiber's own, or one per driving thread. */
    private static final ThreadLocal<Semaphore> BATON = ThreadLocal.withInitial(() -> new Semaphore(0));

    private static final ThreadLocal<Fiber> CURRENT = new ThreadLocal<>();

    private final SimNode node;
    private final Sim sim;
    private final List<Fiber> fibers = new ArrayList<>();
    private boolean killed;
    /** The thread started last: the launcher attaches what its robot needs to know. */
    Fiber lastStarted;

    SimThreads(SimNode node) {
        this.node = node;
        this.sim = node.sim;
    }

    /**
     * The fiber whose own code runs here, or null on the simulation's own thread, and in an event that a fiber's thread
     * runs inside a nested loop (a slow call of it lets the world run on): such an event's waits are the world's, not
     * the fiber's.
     */
    static Fiber current() {
        return Sim.loopsOnThisThread() == 0 ? CURRENT.get() : null;
    }

    /** A thread's scheduling delay: how long after a wake it runs. */
    private long jitter() {
        return sim.between(0, 2 * Sim.MS);
    }

    @Override
    public Worker start(String name, Runnable body) {
        Fiber fiber = new Fiber(name, body);
        lastStarted = fiber;
        if (killed) {
            fiber.done = true;
            return fiber;
        }
        fibers.add(fiber);
        fiber.thread.start();
        node.after(jitter(), () -> resume(fiber));
        return fiber;
    }

    @Override
    public Signal signal() {
        return new SimSignal();
    }

    @Override
    public <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
        if (!future.isDone()) {
            SimSignal done = new SimSignal();
            future.whenComplete((value, error) -> done.wakeAll());
            done.await(future::isDone, null);
        }
        return future.get();
    }

    @Override
    public <T> T get(CompletableFuture<T> future, Duration atMost)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!future.isDone()) {
            SimSignal done = new SimSignal();
            future.whenComplete((value, error) -> done.wakeAll());
            if (!done.await(future::isDone, atMost)) {
                throw new TimeoutException("no answer within " + atMost);
            }
        }
        return future.get();
    }

    /**
     * Blocking work of a robot that does not look at stop requests (a fetch, a computation) for {@code duration} on the
     * node's clock; an interrupt ends it early, with the thread's flag set again.
     */
    void work(Duration duration) {
        try {
            new SimSignal().await(() -> false, duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** kill -9: every thread of this process unwinds now, and none runs again. */
    void kill() {
        killed = true;
        for (Fiber fiber : List.copyOf(fibers)) {
            fiber.killed = true;
            resume(fiber);
        }
        fibers.clear();
    }

    /** Hands the baton to {@code fiber} and takes it back when it waits or ends. */
    private void resume(Fiber fiber) {
        if (fiber.done || fiber.running) {
            return;
        }
        Semaphore mine = BATON.get();
        fiber.running = true;
        fiber.back = mine;
        fiber.go.release();
        mine.acquireUninterruptibly();
        if (fiber.failure != null) {
            Throwable failure = fiber.failure;
            fiber.failure = null;
            throw sim.failed(failure);
        }
    }

    /** One thread of the process, which runs only while it holds the baton. */
    final class Fiber implements Worker {
        final Thread thread;
        private final Semaphore go = new Semaphore(0);
        private final SimSignal ended = new SimSignal();
        private Semaphore back;
        private boolean running;
        private boolean done;
        private boolean killed;
        private Throwable failure;
        /** What the launcher tells the robot this thread runs. */
        Object attachment;

        Fiber(String name, Runnable body) {
            this.thread = Thread.ofPlatform().daemon().name("sim-" + name).unstarted(() -> {
                BATON.set(go);
                CURRENT.set(this);
                go.acquireUninterruptibly();
                try {
                    if (!this.killed) {
                        body.run();
                    }
                } catch (Killed gone) {
                    // The process was killed: nothing of this thread happens any more.
                } catch (Throwable t) {
                    failure = t;
                } finally {
                    done = true;
                    running = false;
                    fibers.remove(this);
                    if (!this.killed) {
                        ended.wakeAll();
                    }
                    back.release();
                }
            });
        }

        /** Gives the baton back, and waits to be resumed. */
        void pause() {
            if (killed) {
                throw new Killed();
            }
            running = false;
            back.release();
            go.acquireUninterruptibly();
            if (killed) {
                throw new Killed();
            }
        }

        @Override
        public boolean isAlive() {
            return !done;
        }

        @Override
        public void interrupt() {
            thread.interrupt();
            if (!running && !done) {
                node.after(jitter(), () -> resume(this));
            }
        }

        @Override
        public boolean join(Duration atMost) throws InterruptedException {
            return done || ended.await(() -> done, atMost);
        }

        @Override
        public String toString() {
            return thread.getName();
        }
    }

    /** A condition on the simulation's clock: its waiters are resumed, each after a moment, when woken. */
    private final class SimSignal implements Signal {
        private final Set<Fiber> waiters = new LinkedHashSet<>();

        /** @param atMost null: no time limit */
        @Override
        public boolean await(BooleanSupplier ready, Duration atMost) throws InterruptedException {
            long deadline = atMost == null ? Long.MAX_VALUE : sim.now() + node.local(atMost);
            Fiber fiber = current();
            if (fiber == null) {
                // The simulation's own thread (a graceful stop waiting for its robots): the world runs meanwhile.
                if (!ready.getAsBoolean()) {
                    sim.runNested(deadline, ready, false);
                }
                return ready.getAsBoolean();
            }
            if (atMost != null) {
                node.after(deadline - sim.now(), () -> resume(fiber));
            }
            waiters.add(fiber);
            try {
                while (true) {
                    if (ready.getAsBoolean()) {
                        return true;
                    }
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    if (sim.now() >= deadline) {
                        return false;
                    }
                    fiber.pause();
                }
            } finally {
                waiters.remove(fiber);
            }
        }

        @Override
        public void wakeAll() {
            for (Fiber fiber : waiters) {
                node.after(jitter(), () -> resume(fiber));
            }
        }
    }
}
