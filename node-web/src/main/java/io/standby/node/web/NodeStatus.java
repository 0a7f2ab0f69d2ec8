package io.standby.node.web;

import io.standby.node.NodeEndpoint;
import io.standby.node.StartedNode;
import io.standby.slot.Lease;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.bson.Document;

/**
 * What a node tells over HTTP beyond {@code /health}: {@code /ready} (taking part in the protocol) and {@code /status}
 * (its slots and robots, and its view of the cluster).
 */
final class NodeStatus {

    private final StartedNode node;
    private final ClusterView cluster;

    NodeStatus(StartedNode node, ClusterView cluster) {
        this.node = node;
        this.cluster = cluster;
    }

    void serve(NodeEndpoint http) {
        http.route("/ready", this::ready);
        http.json("/status", this::status);
    }

    /** {@code /ready}: 200 while the node takes part in the protocol (see {@link StartedNode#notReady()}), else 503. */
    private NodeEndpoint.Response ready() {
        Optional<String> notReady = node.notReady();
        Document body = new Document("ready", notReady.isEmpty())
                .append("node", node.config().node().toString());
        notReady.ifPresent(reason -> body.append("reason", reason));
        return NodeEndpoint.Response.json(notReady.isEmpty() ? 200 : 503, body);
    }

    /**
     * {@code /status}: this node's slots with their epochs and renewal age, its robots, and the cluster as it reads it.
     */
    Document status() {
        Optional<String> notReady = node.notReady();
        List<Document> held = node.leases().stream().map(this::lease).toList();
        Document self = new Document("id", node.config().node().toString())
                .append("instance", node.config().instance())
                .append("state", node.state().name())
                .append("maxSlots", node.config().maxSlots())
                .append("ready", notReady.isEmpty())
                .append("notReady", notReady.orElse(null))
                .append("slots", held)
                .append("robots", running());
        ClusterView.Reading reading = cluster.get();
        return new Document("time", Instant.now().toString())
                .append("node", self)
                .append(
                        "cluster",
                        reading.status() == null ? null : reading.status().toDocument())
                .append("clusterError", reading.error());
    }

    private Document lease(Lease lease) {
        return new Document("slot", lease.slotId())
                .append("epoch", lease.epoch())
                .append("renewedAgoMs", lease.sinceRenewal().toMillis())
                .append("leaseMs", node.config().timing().lease().toMillis());
    }

    private Document running() {
        Document bySlot = new Document();
        node.running().forEach(bySlot::append);
        return bySlot;
    }
}
