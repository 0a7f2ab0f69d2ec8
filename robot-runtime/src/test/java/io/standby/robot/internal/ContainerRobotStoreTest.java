package io.standby.robot.internal;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;

/** The robot store contract on MongoDB 7 in Docker; skipped, not failed, where no Docker engine answers. */
@Testcontainers(disabledWithoutDocker = true)
class ContainerRobotStoreTest extends RobotStoreContract {

    @Container
    static final MongoDBContainer MONGO = new MongoDBContainer("mongo:7");

    @Override
    protected String uri() {
        return MONGO.getReplicaSetUrl();
    }
}
