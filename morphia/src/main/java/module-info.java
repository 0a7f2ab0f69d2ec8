/**
 * Read-only Morphia entities for Standby's collections, for an application's own {@code Datastore}. Optional: no node
 * needs it. On the module path, leave Morphia's {@code mongodb-driver-legacy} out: its packages ({@code com.mongodb},
 * {@code com.mongodb.client.model}) split the driver's, and Morphia needs it only for its deprecated aggregation
 * pipeline.
 */
// Morphia's jar names no module of its own: it is the automatic module morphia.core, under its file's name.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module io.standby.morphia {
    requires transitive io.standby.robot.runtime;
    requires transitive morphia.core;

    exports io.standby.morphia;
    // Morphia reads and writes the entities' private fields by reflection.
    opens io.standby.morphia to
            morphia.core;
}
