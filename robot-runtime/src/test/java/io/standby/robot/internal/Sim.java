package io.standby.robot.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * The simulation's world clock and event queue: one thread, one seeded random source, events in time order (ties in the
 * order they were scheduled), so a seed replays exactly. A step is one event. A node's graceful stop waits inside the
 * protocol ({@code SlotListener.releasing} blocks by contract), and a slow database call waits for its reply; the
 * simulation lets such a wait run the world forward in a nested loop, up to {@link #MAX_NESTING} deep.
 */
final class Sim {

    /** How deep slow calls nest: a slow call made while another is in flight, inside a graceful stop. */
    static final int MAX_NESTING = 3;

    private static final ThreadLocal<Integer> LOOPS = ThreadLocal.withInitial(() -> 0);

    /** Nanoseconds per simulated millisecond. */
    static final long MS = 1_000_000L;

    private record Event(long at, long order, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }

    final long seed;
    final Random random;
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final Deque<String> trace = new ArrayDeque<>();
    private final int traceLength;
    private long order;
    private long now;
    private long steps;
    private int nesting;
    /** The first invariant broken, or exception thrown, wherever it happened (a robot's thread may catch it). */
    private SimChecker.Violation failure;
    /** Run after every step: the invariant checks. */
    private Runnable afterEachStep = () -> {};

    Sim(long seed, int traceLength) {
        this.seed = seed;
        this.random = new Random(seed);
        this.traceLength = traceLength;
    }

    long now() {
        return now;
    }

    long steps() {
        return steps;
    }

    void afterEachStep(Runnable check) {
        this.afterEachStep = check;
    }

    void at(long time, Runnable action) {
        queue.add(new Event(Math.max(time, now), order++, action));
    }

    void after(long delay, Runnable action) {
        at(now + delay, action);
    }

    /** A uniformly random duration in [from, to] nanoseconds. */
    long between(long from, long to) {
        return from + (long) (random.nextDouble() * (to - from));
    }

    boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    /** Runs events up to {@code until}, or until {@code done}, or until {@code maxSteps} steps were taken in all. */
    void runUntil(long until, BooleanSupplier done, long maxSteps) {
        while (!queue.isEmpty() && queue.peek().at() <= until && !done.getAsBoolean() && steps < maxSteps) {
            Event event = queue.poll();
            now = event.at();
            steps++;
            event.action().run();
            if (failure != null) {
                throw failure;
            }
            afterEachStep.run();
        }
        if (queue.isEmpty() || queue.peek().at() > until) {
            now = Math.max(now, until);
        }
    }

    /**
     * Runs the world forward from inside a step, for a wait that blocks in production (a node's graceful stop waiting
     * for its robots, a slow call), until {@code until} or {@code done}. Returns false, running nothing, when
     * {@code optional} (a slow call's latency) and waits are already {@link #MAX_NESTING} deep; a wait that production
     * blocks on always runs.
     */
    boolean runNested(long until, BooleanSupplier done, boolean optional) {
        if (optional && nesting >= MAX_NESTING) {
            return false;
        }
        nesting++;
        LOOPS.set(LOOPS.get() + 1);
        try {
            runUntil(until, done, Long.MAX_VALUE);
        } finally {
            nesting--;
            LOOPS.set(LOOPS.get() - 1);
        }
        return true;
    }

    /** How many nested loops this thread runs in: a robot's thread inside one runs events, not its own code. */
    static int loopsOnThisThread() {
        return LOOPS.get();
    }

    /**
     * Records {@code t} as the seed's failure (the first one stays) and returns it to be thrown: thrown on a robot's
     * thread it may be caught there, but the loop throws it after the step.
     */
    SimChecker.Violation failed(Throwable t) {
        if (failure == null) {
            failure = t instanceof SimChecker.Violation v ? v : new SimChecker.Violation("unexpected " + t, t);
        }
        return failure;
    }

    boolean nested() {
        return nesting > 0;
    }

    int nesting() {
        return nesting;
    }

    void note(String line) {
        if (trace.size() == traceLength) {
            trace.removeFirst();
        }
        trace.addLast(String.format("%9.3fs #%d %s", now / 1e9, steps, line));
    }

    String trace() {
        return String.join("\n", trace);
    }
}
