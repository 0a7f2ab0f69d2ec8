package io.standby.robot.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * The simulated replica set: a primary that applies every write it receives, and the majority-committed state that
 * reads (read concern majority) see. An acknowledged write (w: majority) commits everything applied before it;
 * replication commits the rest in the background; a failover rolls back whatever no majority had yet. Between a caller
 * and the primary, a request can be lost, its reply lost, its delivery delayed past newer requests, or duplicated; and
 * a write can be applied but not confirmed.
 */
final class SimDatabase {

    /** Thrown where the driver would throw a timeout or a not-primary error: the caller may retry. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String message) {
            super(message, null, false, false);
        }
    }

    /** Thrown where the driver would report a write-concern error: applied on the primary, not confirmed. */
    static final class Unconfirmed extends RuntimeException {
        Unconfirmed(String message) {
            super(message, null, false, false);
        }
    }

    enum Fault {
        NONE,
        LOST_REQUEST,
        LOST_REPLY,
        DELAYED,
        DUPLICATE,
        UNCONFIRMED
    }

    /**
     * One collection: its documents on the primary, and the majority-committed copies reads see. The documents are what
     * MongoDB would hold ({@link BsonDocument}s, so int32, int64, dates, null and missing fields are told apart as the
     * server does) and are values: a write puts a new document, so a committed copy is the same object until the next
     * write.
     *
     * <p>Writes evaluate the filter and update documents the Mongo stores send ({@link BsonEval}), with {@code $$NOW}
     * and {@code $currentDate} at the server's clock when the request is delivered.
     */
    final class Collection {
        final Map<String, BsonDocument> primary = new TreeMap<>();
        final Map<String, BsonDocument> committed = new TreeMap<>();
        private final Set<String> dirty = new HashSet<>();

        /** The documents {@code filter} matches on the primary, found by {@code _id} when the filter names it. */
        private List<BsonDocument> matching(BsonDocument filter) {
            List<BsonDocument> matched = new ArrayList<>();
            for (BsonDocument doc : candidates(filter, primary)) {
                if (BsonEval.matches(filter, doc, serverNowMs())) {
                    matched.add(doc);
                }
            }
            return matched;
        }

        /**
         * An {@code updateOne} ({@code many} false) or {@code updateMany} on the primary: how many matched and changed.
         */
        Written update(Bson filter, Bson update, boolean many) {
            BsonDocument query = BsonEval.bson(filter);
            BsonDocument change = BsonEval.bson(update);
            long matched = 0;
            long modified = 0;
            for (BsonDocument doc : matching(query)) {
                BsonDocument after = BsonEval.apply(change, doc, serverNowMs());
                matched++;
                if (!after.equals(doc)) {
                    modified++;
                    put(after);
                }
                if (!many) {
                    break;
                }
            }
            return new Written(matched, modified);
        }

        /**
         * An {@code updateOne} with {@code upsert}, its filter naming one {@code _id}: the document updated, or created
         * from that id and the update, as MongoDB does. Whether it was created.
         */
        boolean upsert(Bson filter, Bson update) {
            BsonDocument query = BsonEval.bson(filter);
            if (update(filter, update, false).matched() == 1) {
                return false;
            }
            put(BsonEval.apply(BsonEval.bson(update), new BsonDocument("_id", query.getString("_id")), serverNowMs()));
            return true;
        }

        /** A {@code deleteOne} on the primary: whether it deleted. */
        boolean deleteOne(Bson filter) {
            List<BsonDocument> matched = matching(BsonEval.bson(filter));
            if (matched.isEmpty()) {
                return false;
            }
            remove(id(matched.getFirst()));
            return true;
        }

        /** An insert on the primary: false for a duplicate key. */
        boolean insert(BsonDocument doc) {
            if (primary.containsKey(id(doc))) {
                return false;
            }
            put(doc);
            return true;
        }

        /** A read (read concern majority): the committed documents {@code filter} matches, in _id order. */
        List<BsonDocument> find(Bson filter) {
            BsonDocument query = BsonEval.bson(filter);
            List<BsonDocument> found = new ArrayList<>();
            for (BsonDocument doc : candidates(query, committed)) {
                if (BsonEval.matches(query, doc, serverNowMs())) {
                    found.add(doc);
                }
            }
            return found;
        }

        void put(BsonDocument doc) {
            primary.put(id(doc), doc);
            dirty.add(id(doc));
        }

        void remove(String id) {
            primary.remove(id);
            dirty.add(id);
        }

        private void commit() {
            for (String id : dirty) {
                BsonDocument doc = primary.get(id);
                if (doc == null) {
                    committed.remove(id);
                } else {
                    committed.put(id, doc);
                }
            }
            dirty.clear();
        }

        private int rollBack() {
            int lost = dirty.size();
            for (String id : dirty) {
                BsonDocument doc = committed.get(id);
                if (doc == null) {
                    primary.remove(id);
                } else {
                    primary.put(id, doc);
                }
            }
            dirty.clear();
            return lost;
        }
    }

    /** What an update matched and changed, as the driver's {@code UpdateResult} reports it. */
    record Written(long matched, long modified) {}

    /**
     * The documents worth evaluating: those a top-level {@code _id} (a string or an {@code $in} of strings) names, as
     * an index on {@code _id} would find them, or all; the whole filter is evaluated on each.
     */
    private static java.util.Collection<BsonDocument> candidates(BsonDocument filter, Map<String, BsonDocument> docs) {
        BsonValue id = filter.get("_id");
        if (id instanceof BsonString one) {
            BsonDocument doc = docs.get(one.getValue());
            return doc == null ? List.of() : List.of(doc);
        }
        if (id instanceof BsonDocument in && in.size() == 1 && in.get("$in") instanceof BsonArray ids) {
            java.util.TreeSet<String> named = new java.util.TreeSet<>();
            for (BsonValue each : ids) {
                if (!each.isString()) {
                    return docs.values();
                }
                named.add(each.asString().getValue());
            }
            List<BsonDocument> found = new ArrayList<>();
            for (String each : named) {
                BsonDocument doc = docs.get(each);
                if (doc != null) {
                    found.add(doc);
                }
            }
            return found;
        }
        return docs.values();
    }

    static String id(BsonDocument doc) {
        return doc.getString("_id").getValue();
    }

    /** A string field, null when missing or null. */
    static String string(BsonDocument doc, String field) {
        BsonValue value = doc.get(field);
        return value == null || value.isNull() ? null : value.asString().getValue();
    }

    /** A number field, null when missing or null. */
    static Long number(BsonDocument doc, String field) {
        BsonValue value = doc.get(field);
        return value == null || value.isNull() ? null : value.asNumber().longValue();
    }

    /** How likely each fault is on one call while faults are on. */
    record Faults(
            double lostRequest,
            double lostReply,
            double delayed,
            double duplicate,
            double unconfirmed,
            double failedRead,
            long maxDelayNanos) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0);
    }

    private final Sim sim;
    final Collection slots = new Collection();
    /** The owner processes' documents, beside the slots as in MongoDB. */
    final Collection owners = new Collection();

    final Collection robots = new Collection();
    /** The id registry ({@code robotIds}), beside the robots as in MongoDB. */
    final Collection robotIds = new Collection();

    private Faults faults = Faults.NONE;
    private long serverOffsetMs = 1_800_000_000_000L;
    private double rate = 1;
    private long noPrimaryUntil;
    private long lastLateDelivery;
    int lateDeliveries;
    int rollbacks;
    /** The next robot incarnation: ObjectIds would not replay. */
    int incarnations;
    /** Slots taken over from an owner found gone (fast failover), before their lease ran out. */
    int fastTakeovers;
    /** Renewals sent without a late mark: by every owner without fast failover, and by one a live watch link covers. */
    int unmarkedRenewals;

    int watchedTakeovers;

    /**
     * The process whose event is running, and its generation: a call that comes back after its process was killed
     * fails, as nothing of a dead process reaches the database afterwards. Null for the operator and the world.
     */
    /** Told of every write accepted under a run's token. */
    SimChecker checker;

    SimNode caller;
    int callerGen;
    /** In storms, the chance that a call takes time, and how long at most; zero: every call is instant. */
    private double slowCalls;

    private long maxLatency;

    SimDatabase(Sim sim) {
        this.sim = sim;
    }

    /**
     * Calls that take time, in storms: while one is in flight (before its request reaches the primary, or after it
     * applied and before its reply arrives), the rest of the world runs on, so that requests of different nodes
     * interleave and reorder, and a node's other threads (renewals, fence checks, its robots) go on meanwhile, and may
     * make slow calls of their own (up to {@link Sim#MAX_NESTING} deep).
     */
    void latency(double slowCalls, long maxLatency) {
        this.slowCalls = slowCalls;
        this.maxLatency = maxLatency;
    }

    /** Lets the world run while a call is in flight, then fails it if its process died meanwhile. */
    private void inFlight(String what) {
        if (slowCalls > 0 && faults != Faults.NONE && sim.nesting() < Sim.MAX_NESTING && sim.chance(slowCalls)) {
            SimNode node = caller;
            int gen = callerGen;
            // The world's events (the operator, faults) run as nobody's while the call is in flight; a
            // node's events say whose they are themselves (SimNode.run).
            caller = null;
            sim.runNested(sim.now() + sim.between(Sim.MS, maxLatency), () -> false, true);
            caller = node;
            callerGen = gen;
        }
        if (caller != null && (caller.generation != callerGen || !caller.up)) {
            throw new Unavailable(what + ": its process is gone");
        }
    }

    void faults(Faults faults) {
        this.faults = faults;
    }

    /** The server's clock, which only a clock jump moves apart from the world's. */
    long serverNowMs() {
        return (long) (sim.now() * rate) / Sim.MS + serverOffsetMs;
    }

    /** The server's clock runs this much fast or slow against the world's, as the nodes' clocks do. */
    void rate(double rate) {
        this.rate = rate;
    }

    void jumpServerClock(long ms) {
        serverOffsetMs += ms;
        sim.note("db: server clock jumps " + ms + " ms");
    }

    /** The latest time a delayed copy already sent may still arrive. */
    long lastLateDelivery() {
        return lastLateDelivery;
    }

    boolean hasPrimary() {
        return sim.now() >= noPrimaryUntil;
    }

    /** When the election under way (if any) ends. */
    long noPrimaryUntil() {
        return noPrimaryUntil;
    }

    /** A read with read concern majority: it sees only committed state, or fails. */
    <T> T read(String what, Supplier<T> read) {
        inFlight("read " + what);
        if (!hasPrimary() || sim.chance(faults.failedRead())) {
            throw new Unavailable("read " + what + " timed out");
        }
        return read.get();
    }

    /** A write request: delivered now, later, twice or never, and confirmed or not. */
    <T> T write(String what, Supplier<T> apply) {
        return write(what, apply, true);
    }

    /**
     * A write that its caller never sends twice (an insert nobody retries): the network may delay it or lose it, but
     * delivers it once at most, as TCP and the driver's retryable writes do.
     */
    <T> T writeOnce(String what, Supplier<T> apply) {
        return write(what, apply, false);
    }

    private <T> T write(String what, Supplier<T> apply, boolean mayRepeat) {
        inFlight(what);
        if (!hasPrimary()) {
            throw new Unavailable("no primary for " + what);
        }
        Fault fault = drawFault();
        if (fault == Fault.DUPLICATE && !mayRepeat) {
            fault = Fault.NONE;
        }
        switch (fault) {
            case LOST_REQUEST -> {
                sim.note("db: request lost: " + what);
                throw new Unavailable(what + " timed out");
            }
            case LOST_REPLY -> {
                apply.get();
                sim.note("db: reply lost: " + what);
                throw new Unavailable(what + " timed out");
            }
            case UNCONFIRMED -> {
                apply.get();
                sim.note("db: applied, not confirmed: " + what);
                throw new Unconfirmed(what + " not confirmed by a majority");
            }
            case DELAYED -> {
                deliverLate(what, apply);
                throw new Unavailable(what + " timed out");
            }
            case DUPLICATE -> {
                T result = apply.get();
                commit();
                deliverLate(what, apply);
                return result;
            }
            default -> {
                T result = apply.get();
                commit();
                // Applied; its reply may take time too, and never reach a process that died meanwhile.
                inFlight(what);
                return result;
            }
        }
    }

    private Fault drawFault() {
        double r = sim.random.nextDouble();
        if ((r -= faults.lostRequest()) < 0) {
            return Fault.LOST_REQUEST;
        }
        if ((r -= faults.lostReply()) < 0) {
            return Fault.LOST_REPLY;
        }
        if ((r -= faults.delayed()) < 0) {
            return Fault.DELAYED;
        }
        if ((r -= faults.duplicate()) < 0) {
            return Fault.DUPLICATE;
        }
        if ((r -= faults.unconfirmed()) < 0) {
            return Fault.UNCONFIRMED;
        }
        return Fault.NONE;
    }

    private <T> void deliverLate(String what, Supplier<T> apply) {
        long at = sim.now() + sim.between(Sim.MS, faults.maxDelayNanos());
        lastLateDelivery = Math.max(lastLateDelivery, at);
        sim.at(at, () -> {
            if (hasPrimary()) {
                lateDeliveries++;
                sim.note("db: late copy arrives: " + what);
                apply.get();
            }
        });
    }

    /** Everything applied so far reached a majority. */
    void commit() {
        slots.commit();
        owners.commit();
        robots.commit();
        robotIds.commit();
    }

    /** The primary steps down: what no majority had is rolled back, and nobody can write for a while. */
    void failover(long electionNanos) {
        int lost = slots.rollBack() + owners.rollBack() + robots.rollBack() + robotIds.rollBack();
        rollbacks += lost;
        noPrimaryUntil = sim.now() + electionNanos;
        sim.note("db: failover, " + lost + " unconfirmed document(s) rolled back, no primary for "
                + electionNanos / Sim.MS + " ms");
    }
}
