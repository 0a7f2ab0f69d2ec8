package io.standby.node;

import io.standby.slot.NodeConfig;

/**
 * Something a node carries besides the slot protocol and its robots: metrics, HTTP pages. Given to
 * {@link StandbyNodeBuilder#extension}; the {@code standby-node-web} module has the dashboard and the Micrometer
 * meters. An extension hears of the node only through the hooks it returns, the way resilience4j's metrics bind to an
 * event publisher: the core knows none of them.
 */
@FunctionalInterface
public interface NodeExtension {

    /**
     * Called at every start of a node built with this extension, before the node binds its address or connects, in the
     * order the extensions were added.
     *
     * @return this start's hooks; an exception fails the start, with nothing bound or connected
     */
    NodeHooks open(NodeConfig config);
}
