package io.standby.node;

import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeState;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.WatchLinkCounts;
import io.standby.slot.Workload;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A node that has joined, as its extensions see it ({@link NodeHooks#started}). Every method is thread-safe. */
public interface StartedNode {

    /** The node's identity, timing and instance id. */
    NodeConfig config();

    /** The leases this node holds right now. */
    List<Lease> leases();

    /** What the node does now: drains, owns slots, or stands by. */
    NodeState state();

    /**
     * Empty while the node takes part in the protocol (its last read of the slots succeeded lately); otherwise why not.
     */
    Optional<String> notReady();

    /** The robots running on this node, by slot. */
    Map<String, List<String>> running();

    /** How many robots of this node's slots run, and how many failed. */
    Workload workload();

    /** What the node's watch links do; {@link WatchLinkCounts#NONE} without them. */
    WatchLinkCounts watchLinks();

    /**
     * The entries of the node's own maps keyed by things that come and go (slots, owners, peers, robots), by map name:
     * the protocol's and the robot runtime's, for the node's meters ({@code standby.node.remembered}), so that a long
     * run can show none grows. Their names are in {@link #REMEMBERED}.
     */
    Map<String, Integer> remembered();

    /** The names of {@link #remembered()}'s maps, the same at every call. */
    List<String> REMEMBERED = List.of(
            "leases",
            "claimable_slots",
            "gone_owners",
            "observed_slots",
            "observed_owners",
            "standby_links",
            "standby_dead_links",
            "standby_link_retries",
            "slot_runs",
            "unwinding_slots",
            "seen_changes",
            "dirty_slots",
            "slot_run_robots",
            "robot_runs");

    /**
     * The robots' connection, with seconds of timeout: for reads an extension makes, which must never delay the
     * protocol's renewals on the other one.
     */
    StandbyDatabase robotDatabase();

    /** The node's HTTP listener; empty with {@link StandbyNodeBuilder#withoutEndpoint()}. */
    Optional<NodeEndpoint> endpoint();
}
