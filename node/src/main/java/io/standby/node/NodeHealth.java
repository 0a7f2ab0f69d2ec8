package io.standby.node;

import java.util.List;
import org.bson.Document;

/**
 * {@code /health}, which every node with an endpoint serves, whatever extensions it has: alive, with its identity, the
 * slots it holds and the robots running under each.
 */
final class NodeHealth {

    /**
     * A system property: {@code true} adds {@code /test/close-listener}, which closes the node's listener. Tests only.
     */
    static final String TEST_HOOKS = "standby.testHooks";

    private NodeHealth() {}

    static void serve(NodeEndpoint http, StartedNode node) {
        http.json("/health", () -> health(node));
        if (Boolean.getBoolean(TEST_HOOKS)) {
            // For tests of fast failover only: the listener goes away while the node lives.
            http.route("/test/close-listener", () -> {
                // Not after a fixed wait: on a loaded machine the answer was sometimes cut off unsent.
                Thread.startVirtualThread(http::closeAfterAnswers);
                return NodeEndpoint.Response.json(
                        202, new Document("closing", node.config().node().toString()));
            });
        }
    }

    static Document health(StartedNode node) {
        List<Document> held = node.leases().stream()
                .map(l -> new Document("slot", l.slotId()).append("epoch", l.epoch()))
                .toList();
        Document running = new Document();
        node.running().forEach(running::append);
        return new Document("status", "UP")
                .append("node", node.config().node().toString())
                .append("instance", node.config().instance())
                .append("maxSlots", node.config().maxSlots())
                .append("slots", held)
                .append("robots", running);
    }
}
