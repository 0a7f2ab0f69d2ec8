package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.NodeView;
import java.time.Duration;
import java.util.List;

/**
 * A registry that passes every call on to another, so that a test overrides only the call it counts or refuses;
 * {@link NodeRegistry#readLive()} stays the interface's own, as it is for a real registry.
 */
class ForwardingNodeRegistry implements NodeRegistry {

    private final NodeRegistry to;

    ForwardingNodeRegistry(NodeRegistry to) {
        this.to = to;
    }

    @Override
    public boolean write(NodeRecord node, Write write) {
        return to.write(node, write);
    }

    @Override
    public void remove(NodeId node, String instance) {
        to.remove(node, instance);
    }

    @Override
    public List<NodeView> readAll() {
        return to.readAll();
    }

    @Override
    public long sweep(Duration olderThan) {
        return to.sweep(olderThan);
    }

    @Override
    public boolean requestDrain(NodeId node) {
        return to.requestDrain(node);
    }
}
