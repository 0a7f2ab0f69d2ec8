package io.standby.slot.internal;

import io.standby.slot.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which free slots a node reads at a poll, so that a claim storm's reads do not grow with the slots times the nodes.
 * Every slot stores a bucket ({@link SlotRules#bucket}: 0 to 65,535, a hash of its id, written when the slot is created
 * and never changed). A {@link Ranking} groups the buckets into a few ranges per node with room, and rendezvous hashing
 * over the live nodes with room gives each range its readers: the first {@link #READERS}. Every node that reads the
 * same registry computes the same readers, and the claim plan gives each slot to one of its readers
 * ({@link ClaimPlan}), so a storm's slots are read about {@code READERS} times in all, not once per node.
 *
 * <p>Which slots a poll reads is no safety condition (every one is in the claim's filter); it decides only who sees a
 * free slot, and so whether the slot is served. Readers may be full, gone, or rank by a registry that others see
 * differently; so a node with room whose poll showed it nothing to claim reads every free slot ({@link #ALL}) from its
 * next poll on, until it is full. A free slot is therefore read by every node with room that has nothing else to claim
 * one poll later, and claimed after the head start. Slots created before the bucket existed have none, and every share
 * reads them. Immutable.
 */
public final class FreeShare {

    /** How many nodes read each range of buckets (besides those that read every free slot). */
    static final int READERS = 2;
    /** Ranges per node with room: each node reads about {@code READERS} times this many. */
    static final int RANGES_PER_NODE = 4;
    /** The stored buckets: 0 to 2^16 - 1. */
    static final int BUCKET_BITS = 16;

    /** Every free slot: a node without membership, among few nodes with room, or whose share showed it nothing. */
    public static final FreeShare ALL = new FreeShare(true, List.of());
    /** No free slot: a node without room to claim one. */
    public static final FreeShare NONE = new FreeShare(false, List.of());

    /** Stored bucket values {@code from} (inclusive) to {@code to} (exclusive). */
    public record Range(int from, int to) {}

    private final boolean all;
    private final List<Range> ranges;

    private FreeShare(boolean all, List<Range> ranges) {
        this.all = all;
        this.ranges = List.copyOf(ranges);
    }

    /** The free slots of these ranges of stored buckets (and those without a bucket); none for no range. */
    public static FreeShare of(List<Range> ranges) {
        return ranges.isEmpty() ? NONE : new FreeShare(false, ranges);
    }

    /** Whether every free slot is read. */
    public boolean coversEveryFreeSlot() {
        return all;
    }

    /** The stored buckets read, besides the slots without one; empty for {@link #ALL} and {@link #NONE}. */
    public List<Range> ranges() {
        return ranges;
    }

    /** Whether no free slot is read. */
    public boolean none() {
        return !all && ranges.isEmpty();
    }

    @Override
    public String toString() {
        return all ? "every free slot" : none() ? "no free slot" : ranges.size() + " bucket range(s)";
    }

    /**
     * The ranges of buckets and their readers, over the live nodes with room (by their registry documents) and the node
     * that asks, which reads free slots only when it has room. A pure function of the registry as read: nodes that read
     * the same one agree.
     */
    static final class Ranking {
        private final List<NodeId> nodes;
        private final long[] keys;
        private final String[] names;
        private final int count;
        private final int shift;
        private final Map<Integer, List<NodeId>> readers = new HashMap<>();

        private Ranking(List<NodeId> nodes) {
            this.nodes = List.copyOf(nodes);
            this.keys = new long[nodes.size()];
            this.names = new String[nodes.size()];
            for (int i = 0; i < nodes.size(); i++) {
                names[i] = nodes.get(i).toString();
                keys[i] = ClaimOrder.key(names[i]);
            }
            // A power of two, a few ranges per node: enough that every node reads some, few enough that
            // a poll's filter names only a few.
            int wanted = Math.max(1, Integer.highestOneBit(Math.max(1, nodes.size() * RANGES_PER_NODE - 1)) << 1);
            this.count = Math.min(1 << BUCKET_BITS, wanted);
            this.shift = BUCKET_BITS - Integer.numberOfTrailingZeros(count);
        }

        /** From the live nodes as the plan takes them; {@code me} counts as having room. */
        static Ranking of(List<ClaimPlan.Member> live, NodeId me) {
            List<NodeId> withRoom = new ArrayList<>();
            for (ClaimPlan.Member m : live) {
                if ((m.maxSlots() > m.held() || m.id().equals(me)) && !withRoom.contains(m.id())) {
                    withRoom.add(m.id());
                }
            }
            if (!withRoom.contains(me)) {
                withRoom.add(me);
            }
            return new Ranking(withRoom);
        }

        /** How many ranges the buckets are grouped in. */
        int ranges() {
            return count;
        }

        /** The range a slot's bucket falls in. */
        int range(String slotId) {
            return SlotRules.bucket(slotId) >>> shift;
        }

        /** The first {@link #READERS} nodes for a range: those the plan gives its slots to. */
        List<NodeId> readers(int range) {
            return readers.computeIfAbsent(range, r -> {
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < nodes.size(); i++) {
                    order.add(i);
                }
                order.sort((a, b) -> a.equals(b) ? 0 : before(a, b, r) ? -1 : 1);
                return order.stream().limit(READERS).map(nodes::get).toList();
            });
        }

        /**
         * The share of {@code me} when it counts itself among the first {@code readers} of each range: the ranges where
         * fewer than that many nodes rank before it. Past a quarter of all ranges, every free slot (a filter of that
         * many ranges would cost more than it saves).
         */
        FreeShare share(NodeId me, int readers) {
            int self = nodes.indexOf(me);
            if (self < 0 || readers >= nodes.size()) {
                return ALL;
            }
            List<Range> read = new ArrayList<>();
            int taken = 0;
            for (int r = 0; r < count; r++) {
                int ahead = 0;
                for (int i = 0; i < nodes.size() && ahead < readers; i++) {
                    if (i != self && before(i, self, r)) {
                        ahead++;
                    }
                }
                if (ahead >= readers) {
                    continue;
                }
                taken++;
                int from = r << shift;
                int to = (r + 1) << shift;
                if (!read.isEmpty() && read.getLast().to() == from) {
                    read.set(read.size() - 1, new Range(read.getLast().from(), to));
                } else {
                    read.add(new Range(from, to));
                }
            }
            return taken * 4 > count ? ALL : new FreeShare(false, read);
        }

        /** Whether node {@code a} ranks before node {@code b} for range {@code r}: the higher score, then the name. */
        private boolean before(int a, int b, int r) {
            long key = ((long) count << 32) | r;
            long sa = ClaimOrder.score(keys[a], key);
            long sb = ClaimOrder.score(keys[b], key);
            return sa != sb ? sa > sb : names[a].compareTo(names[b]) < 0;
        }
    }
}
