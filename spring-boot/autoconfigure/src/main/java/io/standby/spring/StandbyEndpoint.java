package io.standby.spring;

import io.standby.node.StandbyNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/standby}: this node's identity, state and timing, the slots it holds with their leases, and the
 * robots it runs in each. Read-only; operators change robots with the {@code standby} command.
 */
@Endpoint(id = "standby")
public class StandbyEndpoint {

    private final StandbyNode node;

    public StandbyEndpoint(StandbyNode node) {
        this.node = node;
    }

    @ReadOperation
    public Map<String, Object> node() {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("node", node.config().node().toString());
        view.put("instance", node.config().instance());
        view.put("state", node.state().name());
        view.put("ready", node.notReady().isEmpty());
        view.put("notReady", node.notReady().orElse(null));
        view.put("maxSlots", node.config().maxSlots());
        view.put(
                "timing",
                Map.of(
                        "heartbeatMs",
                        node.config().timing().heartbeat().toMillis(),
                        "leaseMs",
                        node.config().timing().lease().toMillis(),
                        "pollMs",
                        node.config().timing().poll().toMillis()));
        view.put("slots", StandbyHealthIndicator.leases(node));
        view.put("robots", node.running());
        return view;
    }
}
