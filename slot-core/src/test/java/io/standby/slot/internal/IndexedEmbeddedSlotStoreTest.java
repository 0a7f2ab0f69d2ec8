package io.standby.slot.internal;

import io.standby.embedded.IndexedMemoryBackend;
import io.standby.testing.TestMongo;

/**
 * The store contract on the server of {@code standby mongo --in-memory}, which answers the poll, the claims and the
 * renewals from its indexes ({@link IndexedMemoryBackend}) instead of scanning: the same facts as on the scanning
 * servers.
 */
class IndexedEmbeddedSlotStoreTest extends SlotStoreContract {

    /** Started with the class; {@link TestMongo#startEmbedded} stops it when the JVM exits. */
    private static final TestMongo.Embedded INDEXED = TestMongo.startEmbedded(new IndexedMemoryBackend());

    @Override
    protected String uri() {
        return INDEXED.uri();
    }
}
