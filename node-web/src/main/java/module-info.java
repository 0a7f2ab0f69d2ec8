/**
 * What a node tells beyond {@code /health}: its pages and dashboard, and its Micrometer meters. Micrometer is optional:
 * only {@code StandbyMetrics} needs it, and only when the application has it.
 */
// Micrometer's jars name their modules in their manifests, and keep those names.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module io.standby.node.web {
    requires transitive io.standby.node;
    requires static transitive micrometer.core;
    requires static micrometer.registry.prometheus;

    exports io.standby.node.web;
}
