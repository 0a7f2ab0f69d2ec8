package io.standby.embedded;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import io.netty.channel.Channel;
import java.util.List;

/**
 * The in-memory backend of {@code standby mongo --in-memory}: {@link StandbyMemoryBackend}, whose collections answer
 * filters from their indexes ({@link IndexedCollection}) and keep the secondary indexes a client creates
 * ({@link OrderedIndex}), which the stock backend only pretends to. The answers are the stock server's; only their cost
 * changes, so that a bench on it measures the protocol, not scans a real MongoDB does not make.
 */
public class IndexedMemoryBackend extends StandbyMemoryBackend {

    @Override
    public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
            @Override
            protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
                return new IndexedCollection(this, collection, options, cursorRegistry);
            }

            @Override
            protected Index<Integer> openOrCreateUniqueIndex(
                    String collection, String indexName, List<IndexKey> keys, boolean sparse) {
                if (keys.size() == 1 && keys.getFirst().getKey().equals("_id")) {
                    return new OrderedIdIndex(indexName, keys, sparse);
                }
                return super.openOrCreateUniqueIndex(collection, indexName, keys, sparse);
            }

            @Override
            protected Index<Integer> openOrCreateSecondaryIndex(
                    String collection, String indexName, List<IndexKey> keys, boolean sparse) {
                return new OrderedIndex(indexName, keys, sparse);
            }

            @Override
            public Document handleCommand(
                    Channel channel, String command, Document query, DatabaseResolver resolver, Oplog oplog) {
                if (command.equals("aggregate")
                        && query.get("aggregate") instanceof String collection
                        && query.get("pipeline") instanceof List<?> pipeline
                        && !pipeline.isEmpty()
                        && pipeline.getFirst() instanceof Document first
                        && first.size() == 1
                        && first.get("$match") instanceof Document filter) {
                    return IndexedCollection.matchingAggregation(
                            getDatabaseName(),
                            collection,
                            filter,
                            () -> super.handleCommand(channel, command, query, resolver, oplog));
                }
                return super.handleCommand(channel, command, query, resolver, oplog);
            }
        };
    }
}
