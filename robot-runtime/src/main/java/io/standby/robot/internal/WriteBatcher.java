package io.standby.robot.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntConsumer;

/**
 * Sends the runners' checkpoints and status changes on one thread of its own: everything queued while the previous
 * batch was in flight goes out as the next {@link WriteBatch}. So a node's write load grows with how often robots
 * checkpoint, never with how many robots it runs. Only one batch is in flight at a time, which is what lets a write's
 * read-back tell it apart from later writes of the same robot.
 */
public final class WriteBatcher implements RobotWrites, AutoCloseable {

    static final Duration CLOSE_WAIT = Duration.ofSeconds(3);
    /** How often an idle sender looks at whether it was closed, in case a wake was missed. */
    private static final Duration IDLE = Duration.ofMillis(100);

    private final RobotStore store;
    private final IntConsumer batchSent;
    private final ConcurrentLinkedQueue<WriteBatch.Pending> queue = new ConcurrentLinkedQueue<>();
    private final RunThreads.Signal queued;
    private final RunThreads.Worker sender;
    private volatile boolean closed;
    /** Set when close stops waiting: what is still queued fails instead of being sent. */
    private volatile boolean abandoned;

    public WriteBatcher(RobotStore store) {
        this(store, writes -> {});
    }

    /** @param batchSent told the number of writes in each bulk sent, for metrics; must return at once */
    public WriteBatcher(RobotStore store, IntConsumer batchSent) {
        this(store, batchSent, RunThreads.VIRTUAL);
    }

    /** @param threads where the sender's thread comes from and how it waits (the simulation's own, on virtual time) */
    public WriteBatcher(RobotStore store, IntConsumer batchSent, RunThreads threads) {
        this.store = store;
        this.batchSent = batchSent;
        this.queued = threads.signal();
        this.sender = threads.start("standby-robot-writes", this::run);
    }

    @Override
    public CompletableFuture<Boolean> submit(RobotWrite write) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        if (closed) {
            done.completeExceptionally(new IllegalStateException("the runtime is closed"));
            return done;
        }
        queue.add(new WriteBatch.Pending(write, done));
        queued.wakeAll();
        return done;
    }

    private void run() {
        List<WriteBatch.Pending> batch = new ArrayList<>();
        while (!abandoned && (!closed || !queue.isEmpty())) {
            try {
                if (!queued.await(() -> !queue.isEmpty() || closed, IDLE)) {
                    continue;
                }
                WriteBatch.Pending next;
                while ((next = queue.poll()) != null) {
                    batch.add(next);
                }
                if (batch.isEmpty()) {
                    continue;
                }
                WriteBatch.send(store, batch);
                batchSent.accept(batch.size());
            } catch (InterruptedException e) {
                if (abandoned) {
                    break;
                }
            } catch (RuntimeException e) {
                batch.forEach(p -> p.done().completeExceptionally(e));
            } finally {
                batch.clear();
            }
        }
        WriteBatch.Pending left;
        while ((left = queue.poll()) != null) {
            left.done().completeExceptionally(new IllegalStateException("the runtime is closed"));
        }
    }

    /**
     * Sends what is queued, then stops. Runs have written their final state before this is called, so what is left is
     * best effort: if the database does not answer within {@link #CLOSE_WAIT}, it fails.
     */
    @Override
    public void close() {
        closed = true;
        queued.wakeAll();
        try {
            if (!sender.join(CLOSE_WAIT)) {
                abandoned = true;
                sender.interrupt();
                sender.join(CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
