package io.standby.robot.internal;

import io.standby.robot.model.RobotView;
import io.standby.slot.Lease;
import io.standby.slot.SlotView;
import io.standby.slot.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The slots whose robots this node runs, as steps without threads of their own, like the slot protocol's: the slot
 * listener's calls ({@link #acquired}, {@link #release}, {@link #lost}, {@link #observed}) and {@link #sync()}, which
 * begins the slots won since the last sync and lets the slots whose robots changed reconcile, with one read of the
 * watched fields of all their robots. {@link SyncLoop} calls it every poll; tests and the simulation call it directly.
 *
 * <p>A slot's robots are read again only when they changed: every change that its owner must act on raises the slot's
 * {@code changes}, which the slot protocol's poll reads anyway, and a change stream (where there is one) marks every
 * slot. Every {@code resync} all of them are read whatever happened, which covers a change whose mark was lost (an
 * operator who died between the two writes, an edit by hand). So an owner's steady load is the protocol's: no robot
 * read per poll.
 */
public final class SlotRuns {

    /** How often every slot's robots are read, whatever the slots' {@code changes} say. */
    public static final Duration RESYNC = Duration.ofSeconds(30);

    private final RuntimeCore core;
    private final Duration stopTimeout;
    private final Duration resync;
    private final Consumer<Set<String>> slotsChanged;
    private final Runnable wake;
    private final Map<String, SlotRun> bySlot = new ConcurrentHashMap<>();
    /**
     * By slot: earlier runs of it, lost or paused, whose robots were interrupted but may still be unwinding. A graceful
     * release of the slot waits for them too: it frees the slot for a standby at once.
     */
    private final Map<String, List<SlotRun>> unwinding = new ConcurrentHashMap<>();

    private final ConcurrentLinkedQueue<SlotRun> toBegin = new ConcurrentLinkedQueue<>();
    /** The slots' {@code changes} as last seen, and the slots whose robots must be read at the next sync. */
    private final Map<String, Long> seenChanges = new ConcurrentHashMap<>();

    private final Set<String> dirty = ConcurrentHashMap.newKeySet();
    private long lastFullRead = Long.MIN_VALUE;

    /**
     * @param resync how often every slot's robots are read whatever their {@code changes} say
     * @param slotsChanged told the slots this node holds whenever they change (the change-stream watcher)
     * @param wake asks for a sync soon (a slot was won, or its robots changed)
     */
    public SlotRuns(
            RuntimeCore core,
            Duration stopTimeout,
            Duration resync,
            Consumer<Set<String>> slotsChanged,
            Runnable wake) {
        this.core = core;
        this.stopTimeout = stopTimeout;
        this.resync = resync;
        this.slotsChanged = slotsChanged;
        this.wake = wake;
    }

    public void acquired(Lease lease) {
        track(new SlotRun(lease, core));
    }

    private void track(SlotRun run) {
        Lease lease = run.lease();
        bySlot.put(lease.slotId(), run);
        slotsChanged.accept(Set.copyOf(bySlot.keySet()));
        toBegin.add(run);
        wake.run();
    }

    /**
     * Graceful stop of one slot: returns once its robots checkpointed and stopped (or the stop timeout passed), and the
     * robots of its earlier runs that a loss or a pause interrupted have ended too (or their own grace passed): a
     * standby may take the slot at once after this.
     */
    public void release(Lease lease) {
        SlotRun run = bySlot.get(lease.slotId());
        if (run != null && run.lease() == lease) {
            run.release(stopTimeout);
        }
        List<SlotRun> earlier = unwinding.remove(lease.slotId());
        if (earlier != null) {
            earlier.forEach(SlotRun::awaitInterrupted);
        }
    }

    public void lost(Lease lease) {
        SlotRun run = bySlot.get(lease.slotId());
        if (run != null && run.lease() == lease) {
            bySlot.remove(lease.slotId(), run);
            seenChanges.remove(lease.slotId());
            slotsChanged.accept(Set.copyOf(bySlot.keySet()));
            run.lost();
            unwinding.compute(lease.slotId(), (slot, runs) -> {
                List<SlotRun> still = stillUnwinding(runs);
                still.add(run);
                return still;
            });
        }
    }

    private static List<SlotRun> stillUnwinding(List<SlotRun> runs) {
        List<SlotRun> still = new ArrayList<>(runs == null ? List.of() : runs);
        still.removeIf(r -> r.running().isEmpty());
        return still;
    }

    /**
     * The lease paused (no renewal acknowledged for the late mark minus its margin): the slot's robots stop at once, as
     * for a loss, because another node may take the slot over early. The slot stays this node's.
     */
    public void paused(Lease lease) {
        lost(lease);
    }

    /**
     * The lease resumed under the same epoch: the slot's robots are taken and started again from their context at the
     * next sync, as after a win. Each take gives a run a new token, so nothing the paused runs still send can land; a
     * robot whose paused run has not ended yet waits for it.
     */
    public void resumed(Lease lease) {
        track(SlotRun.resumed(lease, core));
    }

    /** The slot protocol's poll read this node's slot: if its robots changed, they are read at the next sync. */
    public void observed(Lease lease, SlotView slot) {
        SlotRun run = bySlot.get(slot.id());
        if (run == null || run.lease() != lease) {
            return;
        }
        Long before = seenChanges.put(slot.id(), slot.changes());
        if (before == null || before != slot.changes()) {
            dirty.add(slot.id());
            wake.run();
        }
    }

    /** Something changed that no slot's {@code changes} tells (a change stream event): read every slot's robots. */
    public void changed() {
        dirty.addAll(bySlot.keySet());
    }

    @Override
    public String toString() {
        return "slots " + bySlot.values() + (toBegin.isEmpty() ? "" : ", to begin " + toBegin);
    }

    /** How many robots run on this node, and how many of its slots' robots failed for good. */
    public Workload workload() {
        int running = 0;
        int failed = 0;
        for (SlotRun run : bySlot.values()) {
            running += run.running().size();
            failed += run.failed();
        }
        return new Workload(running, failed, List.of());
    }

    public Map<String, List<String>> running() {
        Map<String, List<String>> running = new TreeMap<>();
        bySlot.forEach((slot, run) -> running.put(slot, run.running()));
        return running;
    }

    /**
     * Begins the slots won since the last sync, then reconciles the begun slots whose robots changed (all of them every
     * {@code resync}), and sends again the status writes of the others that failed to arrive. A slot whose begin or
     * reconcile fails is tried again at the next sync.
     *
     * @throws RuntimeException if the database could not be reached; the next sync tries again
     */
    public void sync() {
        // Slots lost long ago, whose interrupted robots have all ended since: nothing to wait for any more.
        unwinding.replaceAll((slot, runs) -> stillUnwinding(runs));
        unwinding.values().removeIf(List::isEmpty);
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
        List<SlotRun> active =
                bySlot.values().stream().filter(r -> r.begun() && !r.ended()).toList();
        long now = core.clock().nanoTime();
        boolean full = lastFullRead == Long.MIN_VALUE || now - lastFullRead >= resync.toNanos();
        List<SlotRun> toRead = active.stream()
                .filter(r -> full || dirty.contains(r.lease().slotId()))
                .toList();
        active.stream().filter(r -> !toRead.contains(r)).forEach(SlotRun::resendStatuses);
        if (toRead.isEmpty()) {
            return;
        }
        // Cleared before the read: a change marked while it runs is read at the next sync.
        toRead.forEach(r -> dirty.remove(r.lease().slotId()));
        Map<String, List<RobotView>> robots;
        try {
            robots = core
                    .store()
                    .watch(toRead.stream().map(r -> r.lease().slotId()).toList())
                    .stream()
                    .collect(Collectors.groupingBy(RobotView::slotId));
        } catch (RuntimeException e) {
            toRead.forEach(r -> dirty.add(r.lease().slotId()));
            throw e;
        }
        if (full) {
            lastFullRead = now;
        }
        RuntimeException failure = null;
        for (SlotRun run : toRead) {
            if (run.ended()) {
                continue;
            }
            try {
                run.reconcile(robots.getOrDefault(run.lease().slotId(), List.of()));
            } catch (RuntimeException e) {
                dirty.add(run.lease().slotId());
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The entries of its maps keyed by slots and robots, by name, for the node's meters: runs of held slots, slots with
     * runs still unwinding, slots' change counters seen, slots to read again, and the robots of every slot run.
     */
    public void remembered(Map<String, Integer> to) {
        to.put("slot_runs", bySlot.size());
        to.put("unwinding_slots", unwinding.size());
        to.put("seen_changes", seenChanges.size());
        to.put("dirty_slots", dirty.size());
        to.put(
                "slot_run_robots",
                bySlot.values().stream().mapToInt(SlotRun::remembered).sum());
    }
}
