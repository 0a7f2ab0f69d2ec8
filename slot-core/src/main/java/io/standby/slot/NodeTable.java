package io.standby.slot;

import io.standby.slot.internal.ClaimPlan;
import io.standby.slot.internal.DrainRoom;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.NodeRegistry;
import io.standby.slot.internal.SlotStore;
import java.util.List;
import java.util.Optional;

/** What an operator sees of the nodes, and asks of them: who stands by, who owns what, and a drain. */
public final class NodeTable {

    private final NodeRegistry registry;
    private final SlotStore store;

    public NodeTable(StandbyDatabase database) {
        this(new MongoNodeRegistry(database.database()), new MongoSlotStore(database));
    }

    /** Over any registry and slot store, through {@code ApiAccess}: the simulation drives this very table. */
    NodeTable(NodeRegistry registry, SlotStore store) {
        this.registry = registry;
        this.store = store;
    }

    /** Every node in the registry, offline ones too, by identity. */
    public List<NodeView> list() {
        return registry.readAll();
    }

    public Optional<NodeView> get(NodeId node) {
        return list().stream().filter(n -> n.id().equals(node)).findFirst();
    }

    /**
     * Asks a node to hand its slots to standbys one at a time, then stop. The request goes on its registry document and
     * on every slot it holds: a node reads its slots at every poll, so it sees the request at its next poll (a node
     * that holds none sees it at its next registry write, within ten heartbeats).
     *
     * <p>Unforced, the drain is refused, and nothing written, unless the other live nodes have room for every slot the
     * node holds ({@link DrainRoom}); the node itself then still hands a slot over only while there is room, and
     * otherwise keeps serving it and waits. With {@link #forceDrain} it hands them over anyway: a slot with nowhere to
     * go stays unserved until some node has room. Forcing a drain that was asked without force makes it forced.
     *
     * @return the node as it was
     * @throws IllegalArgumentException if the node is unknown, offline, or already draining
     * @throws Refused if the other live nodes have no room for its slots
     */
    public NodeView drain(NodeId node) {
        return drain(node, false);
    }

    /**
     * A drain that hands every slot over even where the other live nodes have no room: a slot with nowhere to go stays
     * unserved until some node has room. See {@link #drain(NodeId)}; forcing a drain that was asked without force makes
     * it forced.
     *
     * @return the node as it was
     * @throws IllegalArgumentException if the node is unknown, offline, or already draining by force
     */
    public NodeView forceDrain(NodeId node) {
        return drain(node, true);
    }

    /** Both drains: {@code force} hands the slots over even where the other live nodes have no room. */
    private NodeView drain(NodeId node, boolean force) {
        NodeView view =
                get(node).orElseThrow(() -> new IllegalArgumentException("unknown node '" + node + "'" + knownNodes()));
        boolean asked = view.state() == NodeState.DRAINING || view.drain();
        // The registry, then the slots: every slot a live node has won by then is counted against its room.
        List<ClaimPlan.Member> live = registry.readLive();
        List<SlotView> slots = store.readAll();
        if (asked
                && !(force
                        && slots.stream()
                                .anyMatch(s -> s.drainAsked(view.instance())
                                        && !s.drain().force()))) {
            throw new IllegalArgumentException("node " + node + " is already draining");
        }
        if (view.offline()) {
            throw new IllegalArgumentException("node " + node + " is offline (last seen "
                    + Durations.approximately(view.age()) + " ago): there is nothing to drain");
        }
        int held = DrainRoom.heldBy(node, slots);
        DrainRoom room = DrainRoom.of(node, live, slots);
        if (!force && room.room() < held) {
            throw new Refused(node, held, room);
        }
        if (!asked && !registry.requestDrain(node)) {
            throw new IllegalArgumentException("unknown node '" + node + "': it left the registry just now");
        }
        store.markDrain(node, new SlotView.Drain(view.instance(), force));
        return view;
    }

    /** A drain refused because the other live nodes have no room for the node's slots; nothing was written. */
    public static final class Refused extends IllegalStateException {
        private final String reason;

        Refused(NodeId node, int held, DrainRoom room) {
            this(node + ": it holds " + slots(held) + " and the other live nodes have room for " + room.room()
                    + (room.waiting() > 0
                            ? " (" + room.free() + " free, " + slots(room.waiting()) + " already waiting for one)"
                            : ""));
        }

        private Refused(String reason) {
            super("cannot drain " + reason
                    + "; start a node with room, or force the drain to release its slots anyway");
            this.reason = reason;
        }

        /** Which node, and the numbers: "10.0.0.5:7700: it holds 2 slots and the other live nodes have room for 1". */
        public String reason() {
            return reason;
        }

        private static String slots(int n) {
            return n + (n == 1 ? " slot" : " slots");
        }
    }

    private String knownNodes() {
        List<NodeView> nodes = list();
        return nodes.isEmpty()
                ? ": no node is registered"
                : " (nodes: "
                        + String.join(
                                ", ", nodes.stream().map(n -> n.id().toString()).toList()) + ")";
    }
}
