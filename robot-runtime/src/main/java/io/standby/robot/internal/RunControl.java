package io.standby.robot.internal;

import java.time.Duration;

/**
 * What is asked of one run: a graceful stop (the first request sticks, with its target for a move), or an interruption
 * (its slot is lost, its token is gone, or it was removed), and the wait that either one ends early. Shared by the
 * run's thread, its context and its slot.
 */
final class RunControl {

    private final Object monitor = new Object();
    private final RunThreads.Signal changed;
    private volatile Run.Stop stop;
    private volatile String moveTarget;
    private volatile boolean interrupted;
    private volatile boolean removed;

    RunControl(RunThreads threads) {
        this.changed = threads.signal();
    }

    void requestStop(Run.Stop why, String target) {
        synchronized (monitor) {
            if (stop == null) {
                moveTarget = target;
                stop = why;
            }
        }
        changed.wakeAll();
    }

    /** Marks the run interrupted; true the first time. The caller interrupts the thread. */
    boolean interrupt() {
        return markInterrupted(false);
    }

    /** The same, for a robot that was removed: its run ends by deleting it. */
    boolean interruptRemoved() {
        return markInterrupted(true);
    }

    private boolean markInterrupted(boolean removal) {
        boolean first;
        synchronized (monitor) {
            first = !interrupted;
            interrupted = true;
            removed |= removal;
        }
        changed.wakeAll();
        return first;
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
        try {
            return !changed.await(this::stopping, duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
