package io.standby.embedded;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryMatcher;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.oplog.Oplog;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * An in-memory collection that answers filters from its indexes, where mongo-java-server scans every document: its
 * {@code _id} index is used only for a filter on {@code _id} alone, and its other indexes are not kept at all
 * ({@link OrderedIndex} keeps them here). The server's own matcher still checks the whole filter on every document the
 * indexes give ({@link IndexPlan}: a superset of the matches), so the answers are a scan's, in a scan's order.
 *
 * <ul>
 *   <li>{@code _id} and more, {@code {_id: "a", epoch: 3, seq: {$lt: 9}}}: every fenced robot write, and the
 *       {@code $in} of ids with which a node takes its robots (10,000 robots: a bulk of their checkpoints took over 10
 *       s scanned). The index matched {@code _id} exactly, so only the other conditions are matched again.
 *   <li>An {@code $or} of such branches, each naming its own {@code _id} or {@code $in} of ids (an owner's one renewal
 *       of all its slots, a branch per epoch): branch by branch, as MongoDB's plan of one index scan per branch does;
 *       matched whole against every document, 5,000 branches among 20,000 documents took 3.4 s.
 *   <li>Any other filter the secondary indexes bound ({@link IndexPlan}), the poll's above all, also as the
 *       {@code $match} that starts an aggregation ({@link #matchingAggregation}): at 10,000 slots, a hundred nodes'
 *       polls matched a million documents a second, 84 % of the server's time in a claim storm.
 * </ul>
 */
public class IndexedCollection extends MemoryCollection {

    /** The leading {@code $match} of the aggregation this thread runs now: database, collection, filter. */
    private static final ThreadLocal<String[]> AGGREGATING = new ThreadLocal<>();

    private static final ThreadLocal<Document> AGGREGATION_MATCH = new ThreadLocal<>();

    private static final QueryMatcher MATCHER = new DefaultQueryMatcher();

    public IndexedCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
        super(database, name, options, cursors);
    }

    /**
     * Runs an aggregation of {@code collection} whose pipeline starts with {@code $match: filter}: the collection then
     * hands the pipeline only the documents its indexes give for the filter, and the {@code $match} stage checks them
     * as it checked every document. Only the first read of that collection in the aggregation is narrowed.
     */
    static <T> T matchingAggregation(String database, String collection, Document filter, Supplier<T> run) {
        AGGREGATING.set(new String[] {database, collection});
        AGGREGATION_MATCH.set(filter);
        try {
            return run.get();
        } finally {
            AGGREGATING.remove();
            AGGREGATION_MATCH.remove();
        }
    }

    @Override
    public Stream<Document> queryAllAsStream() {
        String[] aggregating = AGGREGATING.get();
        if (aggregating != null
                && aggregating[0].equals(getDatabaseName())
                && aggregating[1].equals(getCollectionName())) {
            Document filter = AGGREGATION_MATCH.get();
            AGGREGATING.remove();
            AGGREGATION_MATCH.remove();
            List<Document> found = candidates(filter);
            if (found != null) {
                return found.stream();
            }
        }
        return super.queryAllAsStream();
    }

    /** The documents at the positions the indexes give for {@code filter}, in position order; null for a scan. */
    private synchronized List<Document> candidates(Document filter) {
        BitSet positions = plan().candidates(filter);
        if (positions == null) {
            return null;
        }
        List<Document> found = new ArrayList<>(positions.cardinality());
        for (int p = positions.nextSetBit(0); p >= 0; p = positions.nextSetBit(p + 1)) {
            Document doc = getDocument(p);
            if (doc != null) {
                found.add(doc);
            }
        }
        return found;
    }

    @Override
    protected QueryResult matchDocuments(
            Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
        Object id = query.get("_id");
        Index<Integer> byId = idIndex();
        // Only equality on a scalar id, or $in of scalar ids: other operators, a regex or an array mean something else.
        if (byId != null && (isScalar(id) || isInOfScalars(id))) {
            // The index matched _id exactly; matching it again would compare each document with
            // every id of an $in. In position order, as a scan finds them.
            Document rest = new Document(query);
            rest.remove("_id");
            return matchDocuments(
                    rest,
                    inOrder(byId.getPositions(new Document("_id", id))),
                    orderBy,
                    skip,
                    limit,
                    batchSize,
                    fieldSelector);
        }
        if (byId != null
                && isOrOfIdBranches(query)
                && isEmpty(orderBy)
                && skip == 0
                && limit == 0
                && isEmpty(fieldSelector)) {
            // Each branch on the documents its ids name; a document two branches match is found once, as by the
            // whole $or, and in position order.
            BitSet found = new BitSet();
            for (Object each : (Collection<?>) query.get("$or")) {
                Document branch = (Document) each;
                Document rest = new Document(branch);
                rest.remove("_id");
                for (Integer p : byId.getPositions(new Document("_id", branch.get("_id")))) {
                    Document doc = getDocument(p);
                    if (doc != null && MATCHER.matches(doc, rest)) {
                        found.set(p);
                    }
                }
            }
            return matchDocuments(new Document(), inOrder(found), null, 0, 0, 0, null);
        }
        BitSet positions = plan().candidates(query);
        if (positions != null) {
            return matchDocuments(query, inOrder(positions), orderBy, skip, limit, batchSize, fieldSelector);
        }
        return super.matchDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
    }

    /**
     * An {@code updateMany} whose filter the {@code _id} index answers ({@code _id $in}, or an {@code $or} of
     * {@code _id} branches) changes each document it finds as an update of that {@code _id} alone. The stock server
     * matches every document it updates against the whole filter again (for the positional {@code $} operator): k
     * documents and k branches or ids are k² matches, and an owner's renewal of 5,000 slots in one {@code $or} took
     * seconds after the index had found them in milliseconds. Under the collection's lock, as the stock method: the
     * documents found are exactly those the whole update would change, and no other write comes between. A positional
     * update, an upsert, and an update without operators (the stock method refuses it) go the stock way.
     */
    @Override
    public synchronized Document updateDocuments(
            Document selector, Document update, ArrayFilters arrayFilters, boolean multi, boolean upsert, Oplog oplog) {
        if (!multi
                || upsert
                || !(isOrOfIdBranches(selector) || isInOfScalars(selector.get("_id")))
                || !update.keySet().stream().allMatch(k -> k.startsWith("$"))
                || positional(update)) {
            return super.updateDocuments(selector, update, arrayFilters, multi, upsert, oplog);
        }
        int matched = 0;
        int modified = 0;
        for (Document doc : matchDocuments(selector, null, 0, 0, 0, null)) {
            Document one = super.updateDocuments(
                    new Document("_id", doc.get("_id")), update, arrayFilters, false, false, oplog);
            matched += ((Number) one.get("n")).intValue();
            modified += ((Number) one.get("nModified")).intValue();
        }
        return new Document("n", matched).append("nModified", modified);
    }

    /** Whether a path of the update names an array element by the filter's match ({@code a.$}, {@code a.$[i]}). */
    private static boolean positional(Document update) {
        return update.values().stream()
                .anyMatch(fields ->
                        !(fields instanceof Document d) || d.keySet().stream().anyMatch(path -> path.contains("$")));
    }

    private static Iterable<Integer> inOrder(BitSet positions) {
        return () -> positions.stream().iterator();
    }

    private static Iterable<Integer> inOrder(Iterable<Integer> positions) {
        BitSet sorted = new BitSet();
        positions.forEach(sorted::set);
        return inOrder(sorted);
    }

    private IndexPlan plan() {
        List<OrderedIndex> ordered = new ArrayList<>();
        for (Index<Integer> index : getIndexes()) {
            if (index instanceof OrderedIndex o) {
                ordered.add(o);
            }
        }
        return new IndexPlan(ordered, idIndex() instanceof OrderedIdIndex byId ? byId : null);
    }

    private Index<Integer> idIndex() {
        for (Index<Integer> index : getIndexes()) {
            List<IndexKey> keys = index.getKeys();
            if (index.isUnique() && keys.size() == 1 && keys.getFirst().getKey().equals("_id")) {
                return index;
            }
        }
        return null;
    }

    private static boolean isEmpty(Document document) {
        return document == null || document.isEmpty();
    }

    /**
     * {@code {$or: [{_id: x, ...}, {_id: {$in: [y, z]}, ...}]}}: nothing beside the {@code $or}, and in every branch a
     * scalar {@code _id} or an {@code $in} of them.
     */
    private static boolean isOrOfIdBranches(Document query) {
        return query.size() == 1
                && query.get("$or") instanceof Collection<?> branches
                && !branches.isEmpty()
                && branches.stream()
                        .allMatch(b -> b instanceof Document branch
                                && (isScalar(branch.get("_id")) || isInOfScalars(branch.get("_id"))));
    }

    private static boolean isScalar(Object id) {
        return id instanceof String || id instanceof ObjectId;
    }

    private static boolean isInOfScalars(Object id) {
        return id instanceof Document condition
                && condition.size() == 1
                && condition.get("$in") instanceof Collection<?> ids
                && ids.stream().allMatch(IndexedCollection::isScalar);
    }
}
