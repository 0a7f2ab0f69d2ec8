package io.standby.cli;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.standby.embedded.StandbyMemoryBackend;

/**
 * The in-memory backend of {@code standby mongo --in-memory}, answering refused commands quietly ({@link QuietErrors}),
 * finding documents by {@code _id} under filters with more conditions ({@link IdLookupCollection}), and knowing
 * {@code $unionWith}, so that a node's poll is one command ({@link StandbyMemoryBackend}).
 */
final class QuietMemoryBackend extends StandbyMemoryBackend {

    @Override
    public Document handleMessage(MongoMessage message) {
        return QuietErrors.handle(message, super::handleMessage);
    }

    @Override
    public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
            @Override
            protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
                return new IdLookupCollection(this, collection, options, cursorRegistry);
            }
        };
    }
}
