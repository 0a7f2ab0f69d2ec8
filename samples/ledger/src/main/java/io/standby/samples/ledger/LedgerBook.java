package io.standby.samples.ledger;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * The ledger's input and output collections for one robot. The output's unique index on {@code (robot, seq)} is what
 * makes an append idempotent: a second copy of an output, from a retry, a replay after a takeover or a stale run's late
 * insert, is refused by the index. A refused copy is then compared with the stored one, and must be equal: an output is
 * a function of the input alone, so any difference means the input was changed or someone else wrote the output, and
 * the ledger stops rather than go on over it.
 */
final class LedgerBook {

    static final String OUTPUT_INDEX = "robot_seq";

    private final MongoCollection<Document> input;
    private final MongoCollection<Document> output;
    private final String robot;

    LedgerBook(MongoCollection<Document> input, MongoCollection<Document> output, String robot) {
        this.input = input;
        this.output = output;
        this.robot = robot;
    }

    /**
     * The output's unique {@code (robot, seq)}, and a unique {@code seq} on the input: the input's producer must give
     * every entry its own sequence number (a duplicate makes this fail, and the robot with it, naming the index).
     */
    void ensureIndexes() {
        output.createIndex(
                Indexes.ascending("robot", "seq"),
                new IndexOptions().unique(true).name(OUTPUT_INDEX));
        input.createIndex(
                Indexes.ascending("seq"), new IndexOptions().unique(true).name("seq"));
    }

    /**
     * The inputs {@code from, from + 1, ...}, at most {@code max}, without their {@code _id}; they stop at the first
     * missing sequence number. A hole is waited at, never skipped: a producer with several writers may insert seq 8
     * before seq 7 becomes visible.
     */
    List<Document> inputs(long from, int max) {
        List<Document> found = input.find(Filters.and(Filters.gte("seq", from), Filters.lt("seq", from + max)))
                .sort(Sorts.ascending("seq"))
                // A projection also makes the embedded test server copy each document it returns.
                .projection(Projections.excludeId())
                .limit(max)
                .into(new ArrayList<>());
        List<Document> dense = new ArrayList<>(found.size());
        long expected = from;
        for (Document entry : found) {
            if (seq(entry) != expected) {
                break;
            }
            dense.add(entry);
            expected++;
        }
        return dense;
    }

    /**
     * Inserts the outputs; those already there are checked to be equal.
     *
     * @return how many were already there (replays of earlier appends)
     * @throws IllegalStateException if a stored output differs from the one this robot computed
     */
    int append(List<Document> outputs) {
        try {
            output.insertMany(outputs, new InsertManyOptions().ordered(false));
            return 0;
        } catch (MongoBulkWriteException e) {
            for (BulkWriteError error : e.getWriteErrors()) {
                if (error.getCategory() != ErrorCategory.DUPLICATE_KEY) {
                    throw e;
                }
            }
            if (e.getWriteConcernError() != null) {
                // Applied, perhaps, but not known to be durable: the round is retried as a whole.
                throw e;
            }
            for (BulkWriteError error : e.getWriteErrors()) {
                requireStored(outputs.get(error.getIndex()));
            }
            return e.getWriteErrors().size();
        }
    }

    private void requireStored(Document expected) {
        long seq = expected.getLong("seq");
        Document stored = output.find(Filters.and(Filters.eq("robot", robot), Filters.eq("seq", seq)))
                .projection(Projections.exclude("_id", "epoch"))
                .first();
        Document computed = new Document(expected);
        computed.remove("_id");
        computed.remove("epoch");
        if (stored == null) {
            throw new IllegalStateException("output seq " + seq + " of robot " + robot
                    + " was refused as a duplicate but is not there: was it deleted?");
        }
        if (!stored.equals(computed)) {
            throw new IllegalStateException(
                    "output seq " + seq + " of robot " + robot + " is already there and differs: stored "
                            + stored.toJson() + ", computed " + computed.toJson() + "; was the input changed?");
        }
    }

    /** The sequence number of an input entry. @throws IllegalStateException if it is not a whole number */
    static long seq(Document entry) {
        Object seq = entry.get("seq");
        if (seq instanceof Integer || seq instanceof Long) {
            return ((Number) seq).longValue();
        }
        throw new IllegalStateException("input entry " + entry.toJson() + " has no whole-number seq");
    }
}
