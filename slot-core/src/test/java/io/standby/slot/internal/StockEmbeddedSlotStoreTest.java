package io.standby.slot.internal;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.testing.TestMongo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on a stock mongo-java-server, which does not know {@code $unionWith}, as an application that
 * embeds it for its own tests serves it: the poll then reads the owner documents in a second command.
 */
class StockEmbeddedSlotStoreTest extends SlotStoreContract {

    private static TestMongo.Embedded server;

    @BeforeAll
    static void start() {
        server = TestMongo.startEmbedded(new MemoryBackend());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    protected String uri() {
        return server.uri();
    }

    @Override
    protected boolean knowsUnionWith() {
        return false;
    }
}
