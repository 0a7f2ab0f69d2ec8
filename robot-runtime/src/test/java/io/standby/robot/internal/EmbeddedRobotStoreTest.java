package io.standby.robot.internal;

import io.standby.testing.TestMongo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The robot store contract on an embedded mongo-java-server: runs everywhere. */
class EmbeddedRobotStoreTest extends RobotStoreContract {

    private static TestMongo.Embedded server;

    @BeforeAll
    static void start() {
        server = TestMongo.startEmbedded();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    protected String uri() {
        return server.uri();
    }
}
