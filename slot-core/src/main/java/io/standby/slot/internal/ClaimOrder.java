package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which a node tries claimable slots: rendezvous hashing of (node, slot). Racing nodes
 * start on different slots instead of all hitting the first free one, and a node's preference for a
 * slot does not depend on which other slots happen to be claimable. (The seed hashed {@code ip+port}
 * as a number modulo the candidate count, which collides for 10.0.1.23 and 10.0.12.3 and degenerates
 * when every node uses the same port.)
 */
public final class ClaimOrder {

    private ClaimOrder() {
    }

    /** The candidates, most preferred by this node first. */
    public static List<SlotView> rank(NodeId node, List<SlotView> candidates) {
        return candidates.stream()
                .sorted(Comparator.comparingLong((SlotView slot) -> score(node, slot.id())).reversed()
                        .thenComparing(SlotIds.ORDER))
                .toList();
    }

    static long score(NodeId node, String slotId) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] digest = sha.digest((node + "|" + slotId).getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(digest).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
