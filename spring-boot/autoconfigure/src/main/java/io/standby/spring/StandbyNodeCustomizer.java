package io.standby.spring;

import io.standby.node.StandbyNodeBuilder;

/**
 * A bean that changes the node's builder before the node is built, after the {@code standby.*} properties and the
 * auto-configuration's own settings: for what has no property (restart backoff, MongoClient settings of the node's own
 * clients, ...). Customizers run in their {@code @Order}.
 */
@FunctionalInterface
public interface StandbyNodeCustomizer {

    void customize(StandbyNodeBuilder builder);
}
