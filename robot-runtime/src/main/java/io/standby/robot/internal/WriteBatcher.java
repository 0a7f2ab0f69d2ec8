package io.standby.robot.internal;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * removed), or exceptionally: with an {@link IllegalArgumentException} when the database or the driver
 * refused that write itself (retrying cannot help), with another exception when the database could not
 * be reached (retrying can). One refused write never fails the others sent with it. When a bulk matched fewer writes
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

    static final Duration CLOSE_WAIT = Duration.ofSeconds(3);

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
        List<List<Write>> groups = List.copyOf(byRobot.values());
        List<WriteModel<Document>> models = new ArrayList<>(groups.size());
        for (List<Write> writes : groups) {
            Document merged = new Document();
            writes.forEach(w -> merged.putAll(w.set()));
            Write any = writes.getFirst();
            List<Bson> updates = new ArrayList<>();
            merged.forEach((field, value) -> updates.add(Updates.set(field, value)));
            updates.add(Updates.currentDate(UPDATED));
            models.add(new UpdateOneModel<>(RobotStore.token(any.robotId(), any.slotId(), any.epoch()), Updates.combine(updates)));
        }
        try {
            if (store.write(models) == models.size()) {
                groups.forEach(g -> g.forEach(w -> w.done().complete(true)));
            } else {
                settleByTokens(groups);
            }
        } catch (MongoBulkWriteException e) {
            // Some writes were refused (e.g. an invalid document): only those fail, the others went through.
            Map<Integer, String> refused = new HashMap<>();
            e.getWriteErrors().forEach(error -> refused.put(error.getIndex(), error.getMessage()));
            List<List<Write>> rest = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                if (refused.containsKey(i)) {
                    refuse(groups.get(i), refused.get(i));
                } else {
                    rest.add(groups.get(i));
                }
            }
            settleByTokens(rest);
        } catch (RuntimeException e) {
            if (isTransient(e)) {
                throw e;
            }
            if (groups.size() == 1) {
                refuse(groups.getFirst(), e.toString());
                return;
            }
            // One write the driver cannot send (too large, say) must not hold back every robot's
            // checkpoints: send each alone, so that only that one is refused.
            for (List<Write> group : groups) {
                send(group);
            }
        }
    }

    /** After a bulk that matched fewer writes than it sent: a robot still holding its write's token was written. */
    private void settleByTokens(List<List<Write>> groups) {
        if (groups.isEmpty()) {
            return;
        }
        Map<String, String> tokens = store.tokens(groups.stream().map(l -> l.getFirst().robotId()).toList());
        for (List<Write> writes : groups) {
            Write any = writes.getFirst();
            boolean held = (any.slotId() + "@" + any.epoch()).equals(tokens.get(any.robotId()));
            if (!held) {
                log.debug("Write to {} rejected: token {}@{} is stale", any.robotId(), any.slotId(), any.epoch());
            }
            writes.forEach(w -> w.done().complete(held));
        }
    }

    private static void refuse(List<Write> writes, String why) {
        IllegalArgumentException refused = new IllegalArgumentException("the database refused the write: " + why);
        writes.forEach(w -> w.done().completeExceptionally(refused));
    }

    /** Errors worth retrying the same write for: the database was unreachable, slow or electing. */
    static boolean isTransient(RuntimeException e) {
        return e instanceof MongoSocketException || e instanceof MongoTimeoutException
                || e instanceof MongoOperationTimeoutException || e instanceof MongoNotPrimaryException
                || e instanceof MongoNodeIsRecoveringException || e instanceof MongoInterruptedException
                || (e instanceof MongoException m && (m.hasErrorLabel("RetryableWriteError")
                || m.hasErrorLabel("TransientTransactionError")));
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
