package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeView;
import java.time.Duration;
import java.util.List;

/**
 * The {@code nodes} collection: one document per node, written by the node at a low rate, removed when it stops
 * gracefully, and swept when it has not been seen for long. Any operation may throw a runtime exception when the
 * database cannot be reached in time.
 */
public interface NodeRegistry {

    /** Which of a process's writes of its document a write is. */
    enum Write {
        /** The process's first: it also stamps {@code started}, and clears a drain request meant for an earlier one. */
        FIRST,
        /** Any later one. */
        AGAIN
    }

    /**
     * Writes this node's document (creating it, or replacing an earlier instance's), stamped with the server's clock.
     * Returns whether an operator asked the node to drain.
     */
    boolean write(NodeRecord node, Write write);

    /** Removes this instance's document. */
    void remove(NodeId node, String instance);

    /** Every node's document, with ages by the server's clock. */
    List<NodeView> readAll();

    /**
     * The nodes claims are planned with: not offline, not draining, and not asked to drain; only what the plan needs of
     * each. A registry may answer this more cheaply than {@link #readAll()}, since it is read at every poll of a claim
     * storm.
     */
    default List<ClaimPlan.Member> readLive() {
        return readAll().stream()
                .filter(n -> !n.offline() && n.state() != NodeState.DRAINING && !n.drain())
                .map(n -> new ClaimPlan.Member(
                        n.id(), n.load(), n.maxSlots(), n.slots().size()))
                .toList();
    }

    /** Removes the documents not written for {@code olderThan}, by the server's clock; returns how many. */
    long sweep(Duration olderThan);

    /**
     * Asks a node to drain: marks its document, which the node sees in the reply to its next registry write. Returns
     * false if it has no document.
     */
    boolean requestDrain(NodeId node);

    /** What a node writes about itself. */
    record NodeRecord(
            NodeId node,
            String instance,
            String host,
            NodeState state,
            List<String> slots,
            int maxSlots,
            int robotsRunning,
            int robotsFailed,
            double cpu,
            double memory,
            int load,
            String version,
            Duration interval,
            List<String> types) {}

    /** No registry: a node that takes part in no membership (tests of the protocol alone). */
    NodeRegistry NONE = new NodeRegistry() {
        @Override
        public boolean write(NodeRecord node, Write write) {
            return false;
        }

        @Override
        public void remove(NodeId node, String instance) {}

        @Override
        public List<NodeView> readAll() {
            return List.of();
        }

        @Override
        public long sweep(Duration olderThan) {
            return 0;
        }

        @Override
        public boolean requestDrain(NodeId node) {
            return false;
        }
    };
}
