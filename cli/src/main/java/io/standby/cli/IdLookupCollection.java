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

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * An in-memory collection that finds a document by its {@code _id} index also when the filter has more
 * conditions, {@code {_id: "a", epoch: 3, seq: {$lt: 9}}}: mongo-java-server uses the index only for a
 * filter on {@code _id} alone and scans every document otherwise. Every fenced robot write has such a
 * filter, so with N robots each write cost N document matches and a node's writes N² (10,000 robots:
 * a bulk of their checkpoints took over 10 s); so does the {@code $in} of ids with which a node takes its
 * robots. The other conditions are still checked on the document found. An {@code $or} whose every
 * branch names one {@code _id} (an owner's renewal of all its slots, one branch per slot) is looked up the
 * same way: scanned, it cost every owner's renewal every slot times every branch, which at 10,000 slots
 * and 100 owners took all of the server.
 */
final class IdLookupCollection extends MemoryCollection {

    IdLookupCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
        super(database, name, options, cursors);
    }

    @Override
    protected QueryResult matchDocuments(Document query, Document orderBy, int skip, int limit, int batchSize,
                                         Document fieldSelector) {
        Object id = query.get("_id");
        Index<Integer> index = idIndex();
        // Only equality on a scalar id, or $in of scalar ids: other operators, a regex or an array mean something else.
        if (index != null && (isScalar(id) || isInOfScalars(id))) {
            Iterable<Integer> positions = index.getPositions(new Document("_id", id));
            // The index matched _id exactly; matching it again would compare each document with
            // every id of an $in.
            Document rest = new Document(query);
            rest.remove("_id");
            return matchDocuments(rest, positions, orderBy, skip, limit, batchSize, fieldSelector);
        }
        // An $or whose every branch names one scalar _id (an owner's renewal of all its slots at once): only
        // those documents can match. The whole filter is still matched on each of them.
        if (index != null && id == null && query.get("$or") instanceof List<?> branches && !branches.isEmpty()
                && branches.stream().allMatch(b -> b instanceof Document branch && isScalar(branch.get("_id")))) {
            // In the collection's order, as a scan would find them.
            Set<Integer> positions = new TreeSet<>();
            for (Object branch : branches) {
                index.getPositions(new Document("_id", ((Document) branch).get("_id"))).forEach(positions::add);
            }
            return matchDocuments(query, positions, orderBy, skip, limit, batchSize, fieldSelector);
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

    private static boolean isScalar(Object id) {
        return id instanceof String || id instanceof ObjectId;
    }

    private static boolean isInOfScalars(Object id) {
        return id instanceof Document condition && condition.size() == 1
                && condition.get("$in") instanceof Collection<?> ids && ids.stream().allMatch(IdLookupCollection::isScalar);
    }
}
