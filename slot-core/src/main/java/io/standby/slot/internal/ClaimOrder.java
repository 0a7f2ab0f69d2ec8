package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which a node tries claimable slots: rendezvous hashing of (node, slot). Racing nodes start on different
 * slots instead of all hitting the first free one, and a node's preference for a slot does not depend on which other
 * slots happen to be claimable. (The seed hashed {@code ip+port} as a number modulo the candidate count, which collides
 * for 10.0.1.23 and 10.0.12.3 and degenerates when every node uses the same port.)
 *
 * <p>The hash only has to scatter, the same way on every JVM; it need not resist an adversary. A plan scores every
 * (slot, node) pair, so it is a cheap one: FNV-1a over each name, then MurmurHash3's 64-bit finalizer, under which
 * every input bit moves every output bit.
 */
public final class ClaimOrder {

    private ClaimOrder() {}

    /** The candidates, most preferred by this node first. */
    public static List<SlotView> rank(NodeId node, List<SlotView> candidates) {
        long nodeKey = key(node.toString());
        return candidates.stream()
                .sorted(Comparator.comparingLong((SlotView slot) -> score(nodeKey, key(slot.id())))
                        .reversed()
                        .thenComparing(SlotIds.ORDER))
                .toList();
    }

    /** How much the node with {@code nodeKey} wants the slot with {@code slotKey}; keys from {@link #key}. */
    static long score(long nodeKey, long slotKey) {
        return mix(nodeKey ^ mix(slotKey));
    }

    /** FNV-1a, 64 bits, over the name's characters. */
    static long key(String name) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < name.length(); i++) {
            hash ^= name.charAt(i);
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    private static long mix(long z) {
        z ^= z >>> 33;
        z *= 0xff51afd7ed558ccdL;
        z ^= z >>> 33;
        z *= 0xc4ceb9fe1a85ec53L;
        z ^= z >>> 33;
        return z;
    }
}
