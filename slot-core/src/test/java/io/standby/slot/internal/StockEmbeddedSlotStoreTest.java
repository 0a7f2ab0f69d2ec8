package io.standby.slot.internal;

import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.testing.TestMongo;

/**
 * The store contract on a stock mongo-java-server, which does not know {@code $unionWith}, as an application that
 * embeds it for its own tests serves it: the poll then reads the owner documents in a second command.
 */
class StockEmbeddedSlotStoreTest extends SlotStoreContract {

    /** Started with the class; {@link TestMongo#startEmbedded} stops it when the JVM exits. */
    private static final TestMongo.Embedded STOCK = TestMongo.startEmbedded(new MemoryBackend());

    @Override
    protected String uri() {
        return STOCK.uri();
    }

    @Override
    protected boolean knowsUnionWith() {
        return false;
    }
}
