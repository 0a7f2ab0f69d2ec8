package io.standby.slot;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What a node needs to take part in the slot protocol: its identity, how many slots it may own,
 * the timing, and the instance id that tells this process apart from an earlier one with the same
 * identity.
 *
 * @param node        the ip:port this node's HTTP endpoint binds
 * @param maxSlots    the most slots this node owns at once (at least 1)
 * @param timing      heartbeat, lease, poll and fence margin
 * @param instance    unique per process start; written into owned slot documents
 */
public record NodeConfig(NodeId node, int maxSlots, SlotTiming timing, String instance) {

    public static final int DEFAULT_MAX_SLOTS = 1;

    /** @throws IllegalArgumentException if maxSlots is less than 1 or instance is blank */
    public NodeConfig {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(timing, "timing");
        Objects.requireNonNull(instance, "instance");
        if (maxSlots < 1) {
            throw new IllegalArgumentException("--max-slots " + maxSlots + " must be at least 1");
        }
        if (instance.isBlank()) {
            throw new IllegalArgumentException("instance must not be blank");
        }
    }

    /** A configuration with a fresh instance id. */
    public static NodeConfig of(NodeId node, int maxSlots, SlotTiming timing) {
        return new NodeConfig(node, maxSlots, timing, newInstanceId());
    }

    /** The process id and a random suffix: readable in mongosh, unique across restarts. */
    public static String newInstanceId() {
        byte[] random = new byte[4];
        new SecureRandom().nextBytes(random);
        return ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
    }
}
