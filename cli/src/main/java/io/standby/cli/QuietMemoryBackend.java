package io.standby.cli;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;

/** The in-memory backend of {@code standby mongo --in-memory}, answering refused commands quietly ({@link QuietErrors}). */
final class QuietMemoryBackend extends MemoryBackend {

    @Override
    public Document handleMessage(MongoMessage message) {
        return QuietErrors.handle(message, super::handleMessage);
    }
}
