package io.standby.bench.chaos;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * Inserts {@code {seq, amount}} into the ledger's input at a steady rate, one writer, seq 1, 2, 3 ... with no holes: a
 * failed insert is retried with the same seq until it is acknowledged or found already there (the unique index on seq),
 * so a database restart in between neither skips nor doubles an entry.
 */
final class Producer implements AutoCloseable {

    static final String DATABASE = "ledger";
    static final String INPUT = "ledger_in";

    private final StandbyDatabase db;
    private final MongoCollection<Document> input;
    private final long periodNanos;
    private final AtomicLong produced = new AtomicLong();
    private volatile boolean stopping;
    private final Thread thread;

    Producer(String uri, int perSecond) {
        this.db = StandbyDatabase.connect(uri, DATABASE, Duration.ofSeconds(5), null);
        this.input = db.database().getCollection(INPUT);
        input.createIndex(
                Indexes.ascending("seq"), new IndexOptions().unique(true).name("seq"));
        this.periodNanos = 1_000_000_000L / perSecond;
        this.thread = Thread.ofPlatform().name("chaos-producer").daemon().start(this::produce);
    }

    /** The amount of an entry: any fixed function of seq, negative ones included. */
    static long amount(long seq) {
        return (seq * 7919) % 1000 - 300;
    }

    long produced() {
        return produced.get();
    }

    private void produce() {
        long next = System.nanoTime();
        long seq = 1;
        while (!stopping) {
            try {
                input.insertOne(new Document("seq", seq).append("amount", amount(seq)));
            } catch (MongoWriteException e) {
                if (e.getError().getCategory() != ErrorCategory.DUPLICATE_KEY) {
                    pause();
                    continue;
                }
            } catch (MongoException e) {
                // The database is restarting: the same seq again.
                pause();
                continue;
            }
            produced.set(seq++);
            next += periodNanos;
            long wait = next - System.nanoTime();
            if (wait < -1_000_000_000L) {
                // Behind after an outage: the steady rate from now on, not a burst.
                next = System.nanoTime();
            } else if (wait > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(wait));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops after the insert in progress; {@link #produced} is final afterwards. */
    @Override
    public void close() {
        stopping = true;
        try {
            thread.join(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        db.close();
    }
}
