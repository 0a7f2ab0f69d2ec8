package io.standby.robot.internal;

import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.standby.robot.internal.RobotFields.UPDATED;

/**
 * Sends the runners' checkpoints and status changes: everything queued while the previous batch was in
 * flight goes out as one unordered bulk write, with several writes to one robot merged into one. So a
 * node's write load grows with how often robots checkpoint, never with how many robots it runs.
 *
 * <p>Each write is conditional on its fencing token. A write's future completes with {@code true} when
 * the database acknowledged it, {@code false} when the token was stale (the robot was fenced, moved or
 * removed), or exceptionally when the database could not be reached. When a bulk matched fewer writes
 * than it sent, the robots' current tokens are read back: a robot still holding the token its write
 * carried was written; any other is reported fenced, which is safe even if its write landed just before
 * it was fenced.
 */
public final class WriteBatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WriteBatcher.class);

    private record Write(String robotId, String slotId, long epoch, Document set, CompletableFuture<Boolean> done) {
        String key() {
            return robotId + "\u0000" + slotId + "\u0000" + epoch;
        }
    }

    static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(3);

    private final RobotStore store;
    private final LinkedBlockingQueue<Write> queue = new LinkedBlockingQueue<>();
    private final Thread sender;
    private volatile boolean closed;
    /** Set when close stops waiting: what is still queued fails instead of being sent. */
    private volatile boolean abandoned;

    public WriteBatcher(RobotStore store) {
        this.store = store;
        this.sender = Thread.ofVirtual().name("standby-robot-writes").start(this::run);
    }

    /** Queues {@code $set: fields} on the robot, conditional on {@code (slotId, epoch)}. */
    public CompletableFuture<Boolean> submit(String robotId, String slotId, long epoch, Document fields) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        if (closed) {
            done.completeExceptionally(new IllegalStateException("the runtime is closed"));
            return done;
        }
        queue.add(new Write(robotId, slotId, epoch, fields, done));
        return done;
    }

    private void run() {
        List<Write> batch = new ArrayList<>();
        while (!abandoned && (!closed || !queue.isEmpty())) {
            try {
                Write first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch);
                send(batch);
            } catch (InterruptedException e) {
                if (abandoned) {
                    break;
                }
            } catch (RuntimeException e) {
                batch.forEach(w -> w.done().completeExceptionally(e));
            } finally {
                batch.clear();
            }
        }
        Write left;
        while ((left = queue.poll()) != null) {
            left.done().completeExceptionally(new IllegalStateException("the runtime is closed"));
        }
    }

    private void send(List<Write> batch) {
        // Merge writes to the same robot under the same token, in the order they were queued.
        Map<String, List<Write>> byRobot = new LinkedHashMap<>();
        for (Write w : batch) {
            byRobot.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w);
        }
        List<WriteModel<Document>> models = new ArrayList<>(byRobot.size());
        for (List<Write> writes : byRobot.values()) {
            Document merged = new Document();
            writes.forEach(w -> merged.putAll(w.set()));
            Write any = writes.getFirst();
            List<Bson> updates = new ArrayList<>();
            merged.forEach((field, value) -> updates.add(Updates.set(field, value)));
            updates.add(Updates.currentDate(UPDATED));
            models.add(new UpdateOneModel<>(RobotStore.token(any.robotId(), any.slotId(), any.epoch()), Updates.combine(updates)));
        }
        int matched = store.write(models);
        if (matched == models.size()) {
            batch.forEach(w -> w.done().complete(true));
            return;
        }
        Map<String, String> tokens = store.tokens(byRobot.values().stream().map(l -> l.getFirst().robotId()).toList());
        for (List<Write> writes : byRobot.values()) {
            Write any = writes.getFirst();
            boolean held = (any.slotId() + "@" + any.epoch()).equals(tokens.get(any.robotId()));
            if (!held) {
                log.debug("Write to {} rejected: token {}@{} is stale", any.robotId(), any.slotId(), any.epoch());
            }
            writes.forEach(w -> w.done().complete(held));
        }
    }

    /**
     * Sends what is queued, then stops. Runs have written their final state before this is called, so
     * what is left is best effort: if the database does not answer within {@link #CLOSE_WAIT}, it fails.
     */
    @Override
    public void close() {
        closed = true;
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
