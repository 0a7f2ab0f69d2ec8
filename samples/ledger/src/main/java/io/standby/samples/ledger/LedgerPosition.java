package io.standby.samples.ledger;

import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * How far a ledger robot got, as its checkpointed context: {@code offset}, the next input seq to append;
 * {@code balance}, the sum of the amounts before it; {@code replayed}, how many appends found their output already
 * there (after a takeover, the inputs between the last checkpoint and the last append are appended again, and the
 * unique index turns them into no-ops).
 */
record LedgerPosition(long offset, long balance, long replayed) {

    /** The outputs of a batch of inputs, and the position after them. */
    record Batch(List<Document> outputs, LedgerPosition next) {}

    static LedgerPosition of(Document context, long firstSeq) {
        return new LedgerPosition(
                number(context, "offset", firstSeq), number(context, "balance", 0), number(context, "replayed", 0));
    }

    Document toDocument() {
        return new Document("offset", offset).append("balance", balance).append("replayed", replayed);
    }

    /**
     * The outputs of {@code inputs} (which start at {@link #offset} and have no holes). Each output is a function of
     * the input up to its seq, never of the run that computes it, except {@code epoch}, which says which run appended
     * it and is not compared.
     */
    Batch append(List<Document> inputs, String robot, long epoch) {
        List<Document> outputs = new ArrayList<>(inputs.size());
        long running = balance;
        for (Document entry : inputs) {
            long seq = LedgerBook.seq(entry);
            running = Math.addExact(running, amount(entry, seq));
            outputs.add(new Document("robot", robot)
                    .append("seq", seq)
                    .append("entry", entry)
                    .append("balance", running)
                    .append("epoch", epoch));
        }
        return new Batch(outputs, new LedgerPosition(offset + inputs.size(), running, replayed));
    }

    LedgerPosition replayed(int more) {
        return new LedgerPosition(offset, balance, replayed + more);
    }

    /** Amounts are whole numbers (minor units such as cents), so that every run sums them alike. */
    private static long amount(Document entry, long seq) {
        Object amount = entry.get("amount");
        if (amount instanceof Integer || amount instanceof Long) {
            return ((Number) amount).longValue();
        }
        throw new IllegalStateException(
                "input seq " + seq + ": amount must be a whole number (minor units), got " + amount);
    }

    private static long number(Document context, String key, long fallback) {
        return context.get(key) instanceof Number n ? n.longValue() : fallback;
    }
}
