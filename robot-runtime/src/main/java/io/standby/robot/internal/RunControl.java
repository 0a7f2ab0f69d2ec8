package io.standby.robot.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What is asked of one run: a graceful stop (the first request sticks, with its target for a move), or
 * an interruption (its slot is lost, its token is gone, or it was removed), and the wait that either
 * one ends early. Shared by the run's thread, its context and its slot.
 */
final class RunControl {

    private final Object monitor = new Object();
    private volatile Run.Stop stop;
    private volatile String moveTarget;
    private volatile boolean interrupted;
    private volatile boolean removed;

    void requestStop(Run.Stop why, String target) {
        synchronized (monitor) {
            if (stop == null) {
                moveTarget = target;
                stop = why;
            }
            monitor.notifyAll();
        }
    }

    /** Marks the run interrupted; true the first time. The caller interrupts the thread. */
    boolean interrupt(boolean removal) {
        synchronized (monitor) {
            boolean first = !interrupted;
            interrupted = true;
            removed |= removal;
            monitor.notifyAll();
            return first;
        }
    }

    boolean stopping() {
        return stop != null || interrupted;
    }

    boolean interrupted() {
        return interrupted;
    }

    boolean removed() {
        return removed;
    }

    Run.Stop stop() {
        return stop;
    }

    String moveTarget() {
        return moveTarget;
    }

    /**
     * Waits {@code duration}, ending early when a stop is requested or the thread is interrupted.
     *
     * @return true if the whole duration passed
     */
    boolean sleep(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (monitor) {
            while (!stopping()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return false;
        }
    }
}
