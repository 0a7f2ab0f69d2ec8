package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which claimable slots a node takes at once, from the membership it sees: every node computes the same assignment from
 * the same registry, so racing nodes hardly ever try the same slot. Each slot, in id order, goes to the first node in
 * its own ranking that still has room: the least loaded first (by load score, in steps of 10 so that small swings
 * change nothing), and among those the one that rendezvous hashing of (slot, node) puts first.
 *
 * <p>A node's room is its maximum less what it holds: by its registry document, or by the slots read, if those show
 * more (the slot table shows a win at once, the registry at the winner's next poll; but a poll reads only a few slots,
 * so the registry is what counts the rest). Taking both a slot and one unit of its winner's room out of the assignment
 * leaves every other node's share unchanged, so nodes that plan a little apart during a storm still agree. A pure
 * function; nodes that see different memberships may both take a slot (one loses the compare-and-set) or neither (then
 * the others try after a head start).
 *
 * <p>When the poll read only a share of the free slots ({@link FreeShare}), each slot goes to the first of its range's
 * readers with room, the nodes that read it; only if none of them has room, to the first of all, as above (that node
 * may not read it: the readers then take it after the head start).
 */
public final class ClaimPlan {

    /**
     * A node as the plan sees it: its load score, how many slots it may hold, and how many it holds by its registry
     * document.
     */
    public record Member(NodeId id, int load, int maxSlots, int held) {

        /** A member whose registry document lists no slot. */
        public Member(NodeId id, int load, int maxSlots) {
            this(id, load, maxSlots, 0);
        }
    }

    private ClaimPlan() {}

    /**
     * The slots among {@code claimable} that the assignment gives to {@code me}.
     *
     * @param read the slots as read, to count what each member holds now if its registry document is behind
     */
    public static Set<String> mine(List<SlotView> claimable, List<SlotView> read, List<Member> members, NodeId me) {
        return mine(claimable, read, members, me, null);
    }

    /**
     * The same, each slot to one of the readers {@code ranking} gives its range first, while one has room.
     *
     * @param ranking the ranking of the poll's share of the free slots; null if it read every free slot
     */
    static Set<String> mine(
            List<SlotView> claimable, List<SlotView> read, List<Member> members, NodeId me, FreeShare.Ranking ranking) {
        Map<NodeId, Integer> seen = new HashMap<>();
        for (SlotView slot : read) {
            if (!slot.expired() && slot.owner() != null) {
                seen.merge(slot.owner(), 1, Integer::sum);
            }
        }
        Map<NodeId, Integer> room = new HashMap<>();
        members.forEach(m -> room.put(m.id(), m.maxSlots() - Math.max(m.held(), seen.getOrDefault(m.id(), 0))));
        List<Ranked> ranked = members.stream().map(Ranked::new).toList();
        Set<String> mine = new HashSet<>();
        for (SlotView slot : claimable.stream().sorted(SlotIds.ORDER).toList()) {
            long slotKey = ClaimOrder.key(slot.id());
            List<NodeId> readers = ranking == null ? null : ranking.readers(ranking.range(slot.id()));
            Ranked chosen = readers == null ? null : choose(ranked, room, slotKey, readers);
            if (chosen == null) {
                chosen = choose(ranked, room, slotKey, null);
            }
            if (chosen != null) {
                room.merge(chosen.member.id(), -1, Integer::sum);
                if (chosen.member.id().equals(me)) {
                    mine.add(slot.id());
                }
            }
        }
        return mine;
    }

    /** The first member by rank for the slot with {@code slotKey} that has room, among {@code only} if given. */
    private static Ranked choose(List<Ranked> ranked, Map<NodeId, Integer> room, long slotKey, List<NodeId> only) {
        Ranked chosen = null;
        long chosenScore = 0;
        for (Ranked candidate : ranked) {
            if (room.get(candidate.member.id()) <= 0 || only != null && !only.contains(candidate.member.id())) {
                continue;
            }
            long score = ClaimOrder.score(candidate.key, slotKey);
            if (chosen == null || candidate.before(score, chosen, chosenScore)) {
                chosen = candidate;
                chosenScore = score;
            }
        }
        return chosen;
    }

    /** A member with what its rank needs, computed once per plan. */
    private static final class Ranked {
        final Member member;
        final int loadStep;
        final long key;
        final String name;

        Ranked(Member member) {
            this.member = member;
            this.loadStep = member.load() / 10;
            this.name = member.id().toString();
            this.key = ClaimOrder.key(name);
        }

        /** Less loaded first, then the higher rendezvous score, then the name (scores never tie in practice). */
        boolean before(long score, Ranked other, long otherScore) {
            if (loadStep != other.loadStep) {
                return loadStep < other.loadStep;
            }
            if (score != otherScore) {
                return score > otherScore;
            }
            return name.compareTo(other.name) < 0;
        }
    }
}
