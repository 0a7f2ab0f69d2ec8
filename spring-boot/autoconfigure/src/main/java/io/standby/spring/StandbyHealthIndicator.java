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
 * answered lately, so an unreachable database shows), DOWN with the reason otherwise. Details: the node's identity, its
 * state and the state of each lease it holds.
 */
public class StandbyHealthIndicator extends AbstractHealthIndicator {

    private final StandbyNode node;

    public StandbyHealthIndicator(StandbyNode node) {
        super("Standby health check failed");
        this.node = node;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Optional<String> notReady = node.notReady();
        if (notReady.isEmpty()) {
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
