package io.standby.slot.internal;

import com.mongodb.MongoCommandException;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import io.standby.slot.EventFields;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code events} collection, written off the protocol's threads: {@link #record} only queues, and one thread sends
 * what is queued as one bulk insert, each event stamped with the server's clock as one read of it gives. A full queue
 * (the database unreachable for long) drops events and counts them: the protocol never waits for its history. It stays
 * bounded two ways: it is created capped at {@link #CAPPED_BYTES} where the server can (MongoDB can, the embedded
 * server cannot), and every writer deletes events older than {@link #RETENTION} when it starts and every ten minutes.
 */
public final class EventLog implements AutoCloseable {

    public static final String COLLECTION = EventFields.COLLECTION;
    /** About 50,000 events. */
    static final long CAPPED_BYTES = 16L << 20;

    static final Duration RETENTION = Duration.ofDays(7);
    private static final long SWEEP_EVERY_NANOS = Duration.ofMinutes(10).toNanos();
    private static final int QUEUE = 10_000;
    private static final Logger log = LoggerFactory.getLogger(EventLog.class);
    private static final Document STOP = new Document();
    private static final Document HELLO = new Document("hello", 1);

    private final MongoDatabase database;
    private final MongoCollection<Document> events;
    private final BlockingQueue<Document> queue = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicLong dropped = new AtomicLong();
    private final Thread writer;
    private final long cappedBytes;
    /** Only the writer's thread reads and sets it. */
    private boolean noHello;

    public EventLog(MongoDatabase database) {
        this(database, CAPPED_BYTES);
    }

    EventLog(MongoDatabase database, long cappedBytes) {
        this.cappedBytes = cappedBytes;
        this.database = database;
        this.events = StandbyDatabase.safe(database.getCollection(COLLECTION));
        this.writer = Thread.ofPlatform().daemon().name("standby-events").unstarted(this::run);
    }

    public EventLog start() {
        writer.start();
        return this;
    }

    /** Queues an event; {@code time} is added by the server when it is written. Never blocks. */
    public void record(Document event) {
        if (!queue.offer(event)) {
            dropped.incrementAndGet();
        }
    }

    private void run() {
        ensureCapped();
        long swept = System.nanoTime() - SWEEP_EVERY_NANOS;
        List<Document> batch = new ArrayList<>();
        while (true) {
            if (System.nanoTime() - swept >= SWEEP_EVERY_NANOS) {
                sweep();
                swept = System.nanoTime();
            }
            try {
                Document first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 999);
                // By identity: STOP is an empty document, and equals() compares contents.
                boolean stop = batch.removeIf(event -> event == STOP);
                write(batch);
                batch.clear();
                if (stop) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void ensureCapped() {
        try {
            database.createCollection(
                    COLLECTION, new CreateCollectionOptions().capped(true).sizeInBytes(cappedBytes));
        } catch (MongoCommandException e) {
            String warning = createFailure(e.getErrorCode(), e.getErrorMessage());
            if (warning != null) {
                log.warn(warning);
            } else if (e.getErrorCode() != NAMESPACE_EXISTS) {
                log.debug("Cannot create the events collection: {}", e.getMessage());
            }
        } catch (RuntimeException e) {
            log.debug("Cannot create the events collection: {}", e.toString());
        }
    }

    /** The server's code for a collection that exists already (capped by whoever created it first). */
    static final int NAMESPACE_EXISTS = 48;

    private static final int UNAUTHORIZED = 13;

    /**
     * What an operator must hear when the capped collection could not be created, or null when there is nothing to say:
     * a user without {@code convertToCapped} (which a capped {@code create} needs besides {@code createCollection})
     * gets no capped collection, and the first event then creates an uncapped one, bounded only by the 7-day sweep.
     * Other failures (the embedded server has no capped collections) are logged at DEBUG.
     */
    static String createFailure(int code, String message) {
        if (code != UNAUTHORIZED) {
            return null;
        }
        return "Cannot create the capped '" + COLLECTION + "' collection (" + message + "): a capped create needs "
                + "createCollection and convertToCapped on it. Events now go to an uncapped collection, kept 7 days; "
                + "create it capped by hand or grant those actions (docs/MONGODB.md)";
    }

    /** Deletes the events older than the retention, by the server's clock. */
    private void sweep() {
        try {
            events.deleteMany(ServerAge.olderThan(EventFields.TIME, RETENTION));
        } catch (RuntimeException e) {
            log.debug("Cannot sweep old events: {}", e.toString());
        }
    }

    private void write(List<Document> batch) {
        if (batch.isEmpty()) {
            return;
        }
        try {
            Date now = serverTime();
            if (now != null) {
                List<Document> stamped = new ArrayList<>(batch.size());
                for (Document event : batch) {
                    stamped.add(new Document(event).append(EventFields.TIME, now));
                }
                events.insertMany(stamped, new InsertManyOptions().ordered(false));
            } else {
                events.bulkWrite(upserts(batch), new BulkWriteOptions().ordered(false));
            }
        } catch (RuntimeException e) {
            log.debug("Lost {} event(s): {}", batch.size(), e.toString());
            dropped.addAndGet(batch.size());
        }
        long lost = dropped.getAndSet(0);
        if (lost > 0) {
            log.info("{} event(s) could not be recorded (the database was unreachable or the queue full)", lost);
        }
    }

    /**
     * The server's clock, read once for a whole batch: {@code hello} carries it as {@code localTime}, and a plain
     * insert then costs the server a sixth of what an upsert per event stamped by {@code $currentDate} did (BENCHMARKS,
     * <i>Scale</i>). Null from a server that does not say or does not know {@code hello}, which then gets the upserts.
     */
    private Date serverTime() {
        if (noHello) {
            return null;
        }
        try {
            Object time = database.runCommand(HELLO, ReadPreference.primary()).get("localTime");
            return time instanceof Date date ? date : null;
        } catch (MongoCommandException e) {
            // A server that does not know the command (a plain mongo-java-server) never will.
            noHello = true;
            log.debug("No clock from hello; events are stamped by upserts: {}", e.getErrorMessage());
            return null;
        }
    }

    private static List<WriteModel<Document>> upserts(List<Document> batch) {
        List<WriteModel<Document>> writes = new ArrayList<>(batch.size());
        for (Document event : batch) {
            writes.add(new UpdateOneModel<>(
                    Filters.eq(EventFields.ID, new ObjectId()),
                    Updates.combine(Updates.currentDate(EventFields.TIME), Updates.setOnInsert(new Document(event))),
                    new UpdateOptions().upsert(true)));
        }
        return writes;
    }

    /** Writes what is queued, waiting up to {@code atMost}, then stops. */
    public void close(Duration atMost) {
        if (!writer.isAlive()) {
            return;
        }
        queue.offer(STOP);
        try {
            writer.join(atMost.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writer.interrupt();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(2));
    }
}
