package io.standby.node;

import io.standby.robot.internal.RobotRuntime;
import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotNode;
import org.bson.Document;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a node tells over HTTP: {@code /health} (alive), {@code /ready} (taking part in the protocol),
 * {@code /status} (its slots and robots, and its view of the cluster) and, given a Prometheus registry,
 * {@code /metrics}.
 */
final class NodeStatus {

    /** A system property: {@code true} adds {@code /test/close-listener}, which closes the node's listener. Tests only. */
    static final String TEST_HOOKS = "standby.testHooks";

    private final NodeConfig config;
    private final SlotNode slots;
    private final RobotRuntime robots;
    private final ClusterView cluster;

    NodeStatus(NodeConfig config, SlotNode slots, RobotRuntime robots, ClusterView cluster) {
        this.config = config;
        this.slots = slots;
        this.robots = robots;
        this.cluster = cluster;
    }

    void serve(NodeEndpoint http, Optional<Supplier<String>> prometheus) {
        http.json("/health", this::health);
        http.route("/ready", this::ready);
        http.json("/status", this::status);
        prometheus.ifPresent(scrape -> http.route("/metrics",
                () -> NodeEndpoint.Response.text(PrometheusText.CONTENT_TYPE, scrape.get())));
        if (Boolean.getBoolean(TEST_HOOKS)) {
            // For tests of fast failover only: the listener goes away while the node lives.
            http.route("/test/close-listener", () -> {
                Thread.startVirtualThread(() -> {
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    http.close();
                });
                return NodeEndpoint.Response.json(202, new Document("closing", config.node().toString()));
            });
        }
    }

    /** {@code /health}: the node's identity, the slots it holds, and the robots running under each. */
    Document health() {
        List<Document> held = slots.leases().stream().map(l -> new Document("slot", l.slotId()).append("epoch", l.epoch())).toList();
        return new Document("status", "UP").append("node", config.node().toString()).append("instance", config.instance())
                .append("maxSlots", config.maxSlots()).append("slots", held).append("robots", running());
    }

    /** {@code /ready}: 200 while the node takes part in the protocol (see {@link SlotNode#notReady()}), else 503. */
    private NodeEndpoint.Response ready() {
        Optional<String> notReady = slots.notReady();
        Document body = new Document("ready", notReady.isEmpty()).append("node", config.node().toString());
        notReady.ifPresent(reason -> body.append("reason", reason));
        return NodeEndpoint.Response.json(notReady.isEmpty() ? 200 : 503, body);
    }

    /** {@code /status}: this node's slots with their epochs and renewal age, its robots, and the cluster as it reads it. */
    Document status() {
        Optional<String> notReady = slots.notReady();
        List<Document> held = slots.leases().stream().map(this::lease).toList();
        Document node = new Document("id", config.node().toString()).append("instance", config.instance())
                .append("state", slots.state().name()).append("maxSlots", config.maxSlots())
                .append("ready", notReady.isEmpty()).append("notReady", notReady.orElse(null))
                .append("slots", held).append("robots", running());
        ClusterView.Reading reading = cluster.get();
        return new Document("time", Instant.now().toString()).append("node", node)
                .append("cluster", reading.status() == null ? null : reading.status().toDocument())
                .append("clusterError", reading.error());
    }

    private Document lease(Lease lease) {
        return new Document("slot", lease.slotId()).append("epoch", lease.epoch())
                .append("renewedAgoMs", lease.sinceRenewal().toMillis())
                .append("leaseMs", config.timing().lease().toMillis());
    }

    private Document running() {
        Document bySlot = new Document();
        robots.running().forEach(bySlot::append);
        return bySlot;
    }
}
