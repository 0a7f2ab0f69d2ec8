package io.standby.robot.internal;

import io.standby.testing.TestMongo;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** The robot store contract on a real MongoDB at {@code STANDBY_TEST_MONGO_URI}; skipped when it is not set. */
@EnabledIfEnvironmentVariable(named = TestMongo.URI_VARIABLE, matches = ".+")
class UriRobotStoreTest extends RobotStoreContract {

    @Override
    protected String uri() {
        return System.getenv(TestMongo.URI_VARIABLE);
    }
}
