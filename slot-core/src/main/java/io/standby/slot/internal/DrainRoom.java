package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where the slots of a draining node can go: the free places of the other live nodes (not offline, not draining, not
 * asked to drain), less the slots that already wait for a place (free, expired, or held by a node that is not live). A
 * drain hands a slot over only while this room is positive, so that it never turns a served slot into an unserved one:
 * the rule of SPEC invariant 4 ("every slot is served while at least one live node has room") seen from the node that
 * leaves. The operator's {@code standby node drain} and the draining node itself both judge with it.
 *
 * <p>Places held are counted from the slot documents where they show more than the registry's count, which a node
 * writes at its next poll; a poll's read shows only some slots, so the registry counts the rest. A slot read is only as
 * current as its read: read the registry first, then the slots, so that every slot a registered node has won is counted
 * against it.
 *
 * @param free places left on the other live nodes
 * @param waiting slots that no live node serves now, other than the draining node's own
 */
public record DrainRoom(int free, int waiting) {

    /**
     * @param draining the node that would hand its slots over; not counted, even if listed as live
     * @param live the live nodes, as {@link NodeRegistry#readLive()} gives them
     * @param slots the slots read after the registry: every one, or a poll's (free, late, and the draining node's own)
     */
    public static DrainRoom of(NodeId draining, List<ClaimPlan.Member> live, List<SlotView> slots) {
        Map<NodeId, ClaimPlan.Member> others = live.stream()
                .filter(m -> !m.id().equals(draining))
                .collect(Collectors.toMap(ClaimPlan.Member::id, Function.identity(), (x, y) -> x));
        Map<NodeId, Long> held = slots.stream()
                .filter(s -> s.owner() != null && !s.expired())
                .collect(Collectors.groupingBy(SlotView::owner, Collectors.counting()));
        int free = others.values().stream()
                .mapToInt(m -> (int) Math.max(0, m.maxSlots() - Math.max(m.held(), held.getOrDefault(m.id(), 0L))))
                .sum();
        Set<NodeId> serving = others.keySet();
        int waiting = (int) slots.stream()
                .filter(s ->
                        s.owner() == null || s.expired() || !s.owner().equals(draining) && !serving.contains(s.owner()))
                .count();
        return new DrainRoom(free, waiting);
    }

    /** How many more slots could be handed over now without one of them waiting for a place. */
    public int room() {
        return Math.max(0, free - waiting);
    }

    /** The slots {@code node} serves now, by the same read. */
    public static int heldBy(NodeId node, List<SlotView> slots) {
        return (int) slots.stream()
                .filter(s -> node.equals(s.owner()) && !s.expired())
                .count();
    }
}
