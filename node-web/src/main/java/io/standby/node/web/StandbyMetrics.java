package io.standby.node.web;

import com.mongodb.MongoClientSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.standby.node.NodeEndpoint;
import io.standby.node.NodeExtension;
import io.standby.node.NodeHooks;
import io.standby.node.StartedNode;
import io.standby.robot.runtime.RobotListener;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTable;
import java.util.Objects;

/**
 * A node's meters on a Micrometer registry, bound the way resilience4j's metrics bind to an event publisher: through
 * the node's slot and robot listeners, and the command and pool listeners of the MongoDB clients the node opens itself
 * (not of those given to {@code databases}).
 *
 * <pre>{@code
 * StandbyNode.builder().mongo(uri).node(ip, port).extension(StandbyMetrics.of(registry)).start();
 * }</pre>
 *
 * <p>The meters are {@link StandbyMeters}: slots (this node's, and the cluster's by state), claims, renewals, losses,
 * takeover gaps, watch links, robots, checkpoints, fenced writes, write batches and database commands, registered at
 * each start. Given Prometheus' own registry, the node's endpoint also serves {@code /metrics} in its text format.
 */
public final class StandbyMetrics {

    private StandbyMetrics() {}

    /** The node's meters go to {@code registry}; with a {@code PrometheusMeterRegistry}, {@code /metrics} too. */
    public static NodeExtension of(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        return config -> {
            NodeMetrics metrics = new NodeMetrics(registry);
            return new NodeHooks() {
                @Override
                public void configure(MongoClientSettings.Builder client) {
                    metrics.instrument(client);
                }

                @Override
                public SlotListener slotListener() {
                    return metrics;
                }

                @Override
                public RobotListener robotListener() {
                    return metrics;
                }

                @Override
                public void started(StartedNode node) {
                    metrics.robots(node::workload);
                    metrics.watchLinks(node::watchLinks);
                    metrics.remembered(node::remembered);
                    // On the robots' connection: a scrape never delays the protocol's renewals.
                    metrics.clusterSlots(new SlotCensus(() -> new SlotTable(node.robotDatabase()).countByState()));
                    node.endpoint()
                            .ifPresent(http -> PrometheusText.of(registry)
                                    .ifPresent(scrape -> http.route(
                                            "/metrics",
                                            () -> NodeEndpoint.Response.text(
                                                    PrometheusText.CONTENT_TYPE, scrape.get()))));
                }
            };
        };
    }
}
