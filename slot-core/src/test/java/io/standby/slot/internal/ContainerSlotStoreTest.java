package io.standby.slot.internal;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;

/** The store contract on MongoDB 7 in Docker; skipped, not failed, where no Docker engine answers. */
@Testcontainers(disabledWithoutDocker = true)
class ContainerSlotStoreTest extends SlotStoreContract {

    @Container
    static final MongoDBContainer MONGO = new MongoDBContainer("mongo:7");

    @Override
    protected String uri() {
        return MONGO.getReplicaSetUrl();
    }
}
