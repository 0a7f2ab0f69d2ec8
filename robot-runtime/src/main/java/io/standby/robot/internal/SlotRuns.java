package io.standby.robot.internal;

import io.standby.robot.admin.RobotView;
import io.standby.slot.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The slots whose robots this node runs, as steps without threads of their own, like the slot
 * protocol's: the slot listener's calls ({@link #acquired}, {@link #release}, {@link #lost}) and
 * {@link #sync()}, which begins the slots won since the last sync and lets every begun slot reconcile
 * with one read of the watched fields of all their robots. {@link SyncLoop} calls it every poll; tests
 * and the simulation call it directly.
 */
public final class SlotRuns {

    private final RuntimeCore core;
    private final Duration stopTimeout;
    private final Consumer<Set<String>> slotsChanged;
    private final Runnable wake;
    private final Map<String, SlotRun> bySlot = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<SlotRun> toBegin = new ConcurrentLinkedQueue<>();

    /**
     * @param slotsChanged told the slots this node holds whenever they change (the change-stream watcher)
     * @param wake         asks for a sync soon (a slot was won)
     */
    public SlotRuns(RuntimeCore core, Duration stopTimeout, Consumer<Set<String>> slotsChanged, Runnable wake) {
        this.core = core;
        this.stopTimeout = stopTimeout;
        this.slotsChanged = slotsChanged;
        this.wake = wake;
    }

    public void acquired(Lease lease) {
        SlotRun run = new SlotRun(lease, core);
        bySlot.put(lease.slotId(), run);
        slotsChanged.accept(Set.copyOf(bySlot.keySet()));
        toBegin.add(run);
        wake.run();
    }

    /** Graceful stop of one slot: returns once its robots checkpointed and stopped (or the stop timeout passed). */
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
            slotsChanged.accept(Set.copyOf(bySlot.keySet()));
            run.lost();
        }
    }

    @Override
    public String toString() {
        return "slots " + bySlot.values() + (toBegin.isEmpty() ? "" : ", to begin " + toBegin);
    }

    public Map<String, List<String>> running() {
        Map<String, List<String>> running = new TreeMap<>();
        bySlot.forEach((slot, run) -> running.put(slot, run.running()));
        return running;
    }

    /**
     * Begins the slots won since the last sync, then reconciles every begun slot. A slot whose begin
     * fails is begun again at the next sync.
     *
     * @throws RuntimeException if the database could not be reached; the next sync tries again
     */
    public void sync() {
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
}
