package io.standby.slot.internal;

import io.standby.testing.TestMongo;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** The store contract on a real MongoDB at {@code STANDBY_TEST_MONGO_URI}; skipped when it is not set. */
@EnabledIfEnvironmentVariable(named = TestMongo.URI_VARIABLE, matches = ".+")
class UriSlotStoreTest extends SlotStoreContract {

    @Override
    protected String uri() {
        return System.getenv(TestMongo.URI_VARIABLE);
    }
}
