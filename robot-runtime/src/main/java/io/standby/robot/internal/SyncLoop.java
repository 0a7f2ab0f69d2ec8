package io.standby.robot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that keeps a node's robots in step with the database: it runs {@link SlotRuns#sync()} every poll, and at
 * once when woken by a won slot or by the change-stream watcher, which it owns.
 */
public final class SyncLoop implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SyncLoop.class);

    private final Duration poll;
    private final Semaphore wake = new Semaphore(0);
    private final RobotChangeWatcher watcher;
    private volatile SlotRuns slots;
    private volatile boolean closed;
    private Thread thread;

    public SyncLoop(StandbyDatabase database, Duration poll, MonotonicClock clock) {
        this.poll = poll;
        this.watcher = RobotChangeWatcher.on(database, poll, this::changed, clock);
    }

    /**
     * Something changed that no slot's {@code changes} tells (a change stream event, a run that ended and may have been
     * waited for): every slot's robots are read at the next sync, which comes now.
     */
    public void changed() {
        SlotRuns current = slots;
        if (current != null) {
            current.changed();
        }
        wake.release();
    }

    /** Asks for a sync now. */
    public void wake() {
        wake.release();
    }

    /** The slots this node holds changed: the watcher follows them. */
    public void slotsChanged(Set<String> slotIds) {
        watcher.slots(slotIds);
    }

    public void start(SlotRuns slots) {
        this.slots = slots;
        thread = Thread.ofVirtual().name("standby-robot-sync").start(this::run);
        watcher.start();
    }

    private void run() {
        while (!closed) {
            try {
                wake.tryAcquire(poll.toNanos(), TimeUnit.NANOSECONDS);
                wake.drainPermits();
                slots.sync();
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (RuntimeException e) {
                log.warn("Robot sync failed (retrying next poll): {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        watcher.close();
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
