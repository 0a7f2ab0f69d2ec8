/**
 * The slot layer: nodes that race for slots with leases judged by the database's clock, and fence every write with the
 * slot's epoch. {@code io.standby.slot} is the API; the protocol's parts in {@code io.standby.slot.internal} are open
 * only to the runtime and the node built on them, which share its event log and its suspend-aware clock.
 */
// The driver and BSON jars name their modules in their manifests, and keep those names; the modules that the
// internal package is exported to are built after this one.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic", "module"})
module io.standby.slot {
    requires transitive org.mongodb.driver.sync.client;
    requires transitive org.mongodb.driver.core;
    requires transitive org.mongodb.bson;
    requires org.slf4j;
    // Load: the CPU and heap figures of the load score, which decides who claims first.
    requires java.management;
    requires jdk.management;

    exports io.standby.slot;
    exports io.standby.slot.internal to
            io.standby.robot.runtime,
            io.standby.node;
}
