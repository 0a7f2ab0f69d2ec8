package io.standby.spring;

import io.standby.node.StandbyNode;
import io.standby.slot.Lease;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code standby} health: UP while the node takes part in the protocol (started, and its last read of the slots
 * answered lately, so an unreachable database shows); OUT_OF_SERVICE once its lifecycle stops it (reason
 * {@code stopping} during the hand-over, then {@code stopped}), as db-scheduler reports a scheduler shutting down; DOWN
 * with the reason otherwise. Details: the node's identity, its state and the state of each lease it holds.
 */
public class StandbyHealthIndicator extends AbstractHealthIndicator {

    private final StandbyNode node;
    private final StandbyLifecycle lifecycle;

    /** The health of {@code node}, which {@code lifecycle} starts and stops. */
    public StandbyHealthIndicator(StandbyNode node, StandbyLifecycle lifecycle) {
        super("Standby health check failed");
        this.node = node;
        this.lifecycle = lifecycle;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Optional<String> notReady = node.notReady();
        if (lifecycle.isStopping()) {
            // An orderly stop, not a failure: a DOWN would read as broken on dashboards and alerts while the
            // node hands its slots over, exactly as it should.
            builder.outOfService().withDetail("reason", lifecycle.isRunning() ? "stopping" : "stopped");
        } else if (notReady.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("reason", notReady.get());
        }
        builder.withDetail("node", node.config().node().toString())
                .withDetail("instance", node.config().instance())
                .withDetail("state", node.state().name())
                .withDetail("maxSlots", node.config().maxSlots())
                .withDetail("slots", leases(node));
    }

    /** Each lease: its slot, epoch, whether it is valid or paused now, and the age of its last renewal. */
    static List<Map<String, Object>> leases(StandbyNode node) {
        return node.leases().stream().map(StandbyHealthIndicator::lease).toList();
    }

    private static Map<String, Object> lease(Lease lease) {
        Map<String, Object> slot = new LinkedHashMap<>();
        slot.put("slot", lease.slotId());
        slot.put("epoch", lease.epoch());
        slot.put("lease", lease.isValid() ? "valid" : "paused");
        slot.put("renewedAgoMs", lease.sinceRenewal().toMillis());
        return slot;
    }
}
