package io.standby.slot;

import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.NodeRegistry;

import java.util.List;
import java.util.Optional;

/** What an operator sees of the nodes, and asks of them: who stands by, who owns what, and a drain. */
public final class NodeTable {

    private final NodeRegistry registry;

    public NodeTable(StandbyDatabase database) {
        this.registry = new MongoNodeRegistry(database.database());
    }

    /** Every node in the registry, offline ones too, by identity. */
    public List<NodeView> list() {
        return registry.readAll();
    }

    public Optional<NodeView> get(NodeId node) {
        return list().stream().filter(n -> n.id().equals(node)).findFirst();
    }

    /**
     * Asks a node to hand its slots to standbys one at a time, then stop. It sees the request at its next
     * registry write (within ten heartbeats).
     *
     * @return the node as it was
     * @throws IllegalArgumentException if the node is unknown, offline, or already draining
     */
    public NodeView drain(NodeId node) {
        NodeView view = get(node).orElseThrow(() -> new IllegalArgumentException("unknown node '" + node + "'" + knownNodes()));
        if (view.state() == NodeState.DRAINING || view.drain()) {
            throw new IllegalArgumentException("node " + node + " is already draining");
        }
        if (view.offline()) {
            throw new IllegalArgumentException("node " + node + " is offline (last seen " + Durations.approximately(view.age())
                    + " ago): there is nothing to drain");
        }
        if (!registry.requestDrain(node)) {
            throw new IllegalArgumentException("unknown node '" + node + "': it left the registry just now");
        }
        return view;
    }

    private String knownNodes() {
        List<NodeView> nodes = list();
        return nodes.isEmpty() ? ": no node is registered" : " (nodes: " + String.join(", ", nodes.stream().map(n -> n.id().toString()).toList()) + ")";
    }
}
