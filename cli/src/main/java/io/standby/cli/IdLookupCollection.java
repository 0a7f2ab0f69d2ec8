package io.standby.cli;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An in-memory collection that finds a document by its {@code _id} index also when the filter has more conditions,
 * {@code {_id: "a", epoch: 3, seq: {$lt: 9}}}: mongo-java-server uses the index only for a filter on {@code _id} alone
 * and scans every document otherwise. Every fenced robot write has such a filter, so with N robots each write cost N
 * document matches and a node's writes N² (10,000 robots: a bulk of their checkpoints took over 10 s); so does the
 * {@code $in} of ids with which a node takes its robots. The other conditions are still checked on the document found.
 * A filter that is only an {@code $or} of such branches, each naming its own {@code _id} or {@code $in} of ids (an
 * owner's one renewal of all its slots, a branch per epoch), is answered branch by branch from the index, as MongoDB's
 * plan of one index scan per branch does; matched whole against every document, 5,000 branches among 20,000 documents
 * took 3.4 s.
 */
final class IdLookupCollection extends MemoryCollection {

    IdLookupCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
        super(database, name, options, cursors);
    }

    @Override
    protected QueryResult matchDocuments(
            Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
        Object id = query.get("_id");
        Index<Integer> byId = idIndex();
        // Only equality on a scalar id, or $in of scalar ids: other operators, a regex or an array mean something else.
        if (byId != null && (isScalar(id) || isInOfScalars(id))) {
            Iterable<Integer> positions = byId.getPositions(new Document("_id", id));
            // The index matched _id exactly; matching it again would compare each document with
            // every id of an $in.
            Document rest = new Document(query);
            rest.remove("_id");
            return matchDocuments(rest, positions, orderBy, skip, limit, batchSize, fieldSelector);
        }
        if (byId != null
                && isOrOfIdBranches(query)
                && isEmpty(orderBy)
                && skip == 0
                && limit == 0
                && isEmpty(fieldSelector)) {
            List<Document> found = new ArrayList<>();
            Set<Object> ids = new HashSet<>();
            for (Object each : (Collection<?>) query.get("$or")) {
                Document branch = (Document) each;
                Document rest = new Document(branch);
                rest.remove("_id");
                for (Document doc : matchDocuments(
                        rest, byId.getPositions(new Document("_id", branch.get("_id"))), null, 0, 0, 0, null)) {
                    // A document two branches match is matched once, as by the whole $or.
                    if (ids.add(doc.get("_id"))) {
                        found.add(doc);
                    }
                }
            }
            return new QueryResult(found);
        }
        return super.matchDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
    }

    private Index<Integer> idIndex() {
        for (Index<Integer> index : getIndexes()) {
            List<IndexKey> keys = index.getKeys();
            if (keys.size() == 1 && keys.getFirst().getKey().equals("_id")) {
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
                && ids.stream().allMatch(IdLookupCollection::isScalar);
    }
}
