package io.standby.bench;

import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads one slot document every few milliseconds on a thread of its own and records each change of owner with the times
 * the database wrote: the former owner's last heartbeat and the new owner's claim (a claim stamps {@code time} with the
 * server's clock, and the first renewal comes a heartbeat later, so the first sight of a new epoch carries the claim's
 * own time). The database runs on this machine, so its clock is the bench's clock.
 */
final class SlotWatch implements AutoCloseable {

    /** A change of owner: from {@code before} (its last heartbeat seen) to {@code after} (at its claim). */
    record Change(SlotView before, SlotView after) {

        Instant claimed() {
            return after.time();
        }

        /** How long the slot went without a heartbeat: from the former owner's last one to the claim. */
        Duration unowned() {
            return Duration.between(before.time(), after.time());
        }
    }

    private static final Duration EVERY = Duration.ofMillis(5);

    private final SlotTable slots;
    private final String slotId;
    private final Thread thread;
    private final List<Change> changes = new ArrayList<>();
    private volatile SlotView last;
    private volatile boolean stopped;

    SlotWatch(StandbyDatabase db, String slotId) {
        this.slots = new SlotTable(db);
        this.slotId = slotId;
        this.thread = Thread.ofPlatform().daemon().name("slot-watch").start(this::run);
    }

    private void run() {
        SlotView held = null;
        while (!stopped) {
            try {
                Optional<SlotView> read = slots.get(slotId);
                if (read.isPresent()) {
                    SlotView now = read.get();
                    if (now.owner() != null) {
                        if (held != null && now.epoch() != held.epoch()) {
                            synchronized (changes) {
                                changes.add(new Change(held, now));
                                changes.notifyAll();
                            }
                        }
                        held = now;
                    }
                    last = now;
                }
            } catch (RuntimeException e) {
                // The next read tells; a bench that waits for a change has its own deadline.
            }
            Bench.sleep(EVERY);
        }
    }

    /** The slot as last read. */
    SlotView last() {
        return last;
    }

    /** Every change of owner seen so far, oldest first. */
    List<Change> changes() {
        synchronized (changes) {
            return List.copyOf(changes);
        }
    }

    /** Waits until the slot has an owner; returns it. */
    NodeId awaitOwner(Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (last == null || last.owner() == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(slotId + " has no owner after " + atMost.toMillis() + " ms");
            }
            Bench.sleep(EVERY);
        }
        return last.owner();
    }

    /** The first change of owner to an epoch above {@code epoch}. */
    Change awaitChangeAfter(long epoch, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        synchronized (changes) {
            while (true) {
                for (Change change : changes) {
                    if (change.after().epoch() > epoch) {
                        return change;
                    }
                }
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new IllegalStateException(slotId + " did not change owner after epoch " + epoch + " within "
                            + atMost.toMillis() + " ms");
                }
                try {
                    changes.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
