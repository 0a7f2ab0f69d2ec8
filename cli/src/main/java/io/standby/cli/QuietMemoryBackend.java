package io.standby.cli;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.standby.embedded.IndexedMemoryBackend;

/**
 * The in-memory backend of {@code standby mongo --in-memory}, answering refused commands quietly ({@link QuietErrors}),
 * answering filters from its indexes ({@link io.standby.embedded.IndexedCollection}), and knowing {@code $unionWith},
 * so that a node's poll is one command ({@link io.standby.embedded.StandbyMemoryBackend}).
 */
final class QuietMemoryBackend extends IndexedMemoryBackend {

    @Override
    public Document handleMessage(MongoMessage message) {
        return QuietErrors.handle(message, super::handleMessage);
    }
}
