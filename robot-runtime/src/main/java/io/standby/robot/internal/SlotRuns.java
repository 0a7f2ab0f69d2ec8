package io.standby.robot.internal;

import io.standby.robot.RobotView;
import io.standby.slot.Lease;
import io.standby.slot.StandbyDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The slots whose robots this node runs, and the one thread that keeps them in step with the database:
 * it begins a slot as soon as it is won, then every poll reads the watched fields of all these slots'
 * robots in one query and lets each slot reconcile. A change stream on the operator's changes to these
 * slots' robots, where the database offers one ({@link RobotChangeWatcher}), wakes it early; it is only
 * ever an accelerator.
 */
public final class SlotRuns {

    private static final Logger log = LoggerFactory.getLogger(SlotRuns.class);

    private final RuntimeCore core;
    private final Duration poll;
    private final Duration stopTimeout;
    private final RobotChangeWatcher watcher;
    private final Map<String, SlotRun> bySlot = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<SlotRun> toBegin = new ConcurrentLinkedQueue<>();
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean closed;
    private Thread sync;

    public SlotRuns(RuntimeCore core, Duration poll, Duration stopTimeout, StandbyDatabase database) {
        this.core = core;
        this.poll = poll;
        this.stopTimeout = stopTimeout;
        this.watcher = RobotChangeWatcher.on(database, poll, wake::release);
    }

    public void start() {
        try {
            core.store().ensureIndexes();
        } catch (RuntimeException e) {
            log.warn("Could not create the robots index (queries still work): {}", e.toString());
        }
        sync = Thread.ofVirtual().name("standby-robot-sync").start(this::syncLoop);
        watcher.start();
    }

    public void acquired(Lease lease) {
        SlotRun run = new SlotRun(lease, core);
        bySlot.put(lease.slotId(), run);
        watcher.slots(bySlot.keySet());
        toBegin.add(run);
        wake.release();
    }

    public void release(Lease lease) {
        SlotRun run = bySlot.get(lease.slotId());
        if (run != null && run.lease() == lease) {
            run.release(stopTimeout);
        }
    }

    public void lost(Lease lease) {
        SlotRun run = bySlot.get(lease.slotId());
        if (run != null && run.lease() == lease) {
            bySlot.remove(lease.slotId(), run);
            watcher.slots(bySlot.keySet());
            run.lost();
        }
    }

    public Map<String, List<String>> running() {
        Map<String, List<String>> running = new TreeMap<>();
        bySlot.forEach((slot, run) -> running.put(slot, run.running()));
        return running;
    }

    private void syncLoop() {
        while (!closed) {
            try {
                wake.tryAcquire(poll.toNanos(), TimeUnit.NANOSECONDS);
                wake.drainPermits();
                syncOnce();
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (RuntimeException e) {
                log.warn("Robot sync failed (retrying next poll): {}", e.toString());
            }
        }
    }

    private void syncOnce() {
        SlotRun fresh;
        while ((fresh = toBegin.poll()) != null) {
            if (fresh.ended()) {
                continue;
            }
            try {
                fresh.begin();
            } catch (RuntimeException e) {
                toBegin.add(fresh);
                throw e;
            }
        }
        List<SlotRun> active = bySlot.values().stream().filter(r -> r.begun() && !r.ended()).toList();
        if (active.isEmpty()) {
            return;
        }
        Map<String, List<RobotView>> robots = core.store().watch(active.stream().map(r -> r.lease().slotId()).toList())
                .stream().collect(Collectors.groupingBy(RobotView::slotId));
        for (SlotRun run : active) {
            if (!run.ended()) {
                run.reconcile(robots.getOrDefault(run.lease().slotId(), List.of()));
            }
        }
    }

    public void close() {
        closed = true;
        watcher.close();
        if (sync != null) {
            sync.interrupt();
            try {
                sync.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
