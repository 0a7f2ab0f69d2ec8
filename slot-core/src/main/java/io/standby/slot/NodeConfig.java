package io.standby.slot;

import io.standby.slot.internal.HostFingerprint;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What a node needs to take part in the slot protocol: its identity, how many slots it may own, the timing, and the
 * instance id that tells this process apart from an earlier one with the same identity.
 *
 * @param node the ip:port this node's HTTP endpoint binds
 * @param maxSlots the most slots this node owns at once (at least 1)
 * @param timing heartbeat, lease, poll and fence margin
 * @param instance unique per process start, with this host's fingerprint after an {@code @} (see
 *     {@link #newInstanceId()}); written into owned slot documents
 * @param addressBound whether this process bound {@code node} itself before starting the node, and holds it until the
 *     node has stopped: the proof that the earlier processes with this identity on this host are gone, which lets it
 *     take their slots back at once. Without it, a slot held under this identity by another process is waited out like
 *     any other, and the node refuses to start while such a slot holds a live lease.
 */
public record NodeConfig(NodeId node, int maxSlots, SlotTiming timing, String instance, boolean addressBound) {

    public static final int DEFAULT_MAX_SLOTS = 1;

    /** @throws IllegalArgumentException if maxSlots is less than 1 or instance is blank */
    public NodeConfig {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(timing, "timing");
        Objects.requireNonNull(instance, "instance");
        if (maxSlots < 1) {
            throw new IllegalArgumentException("max slots " + maxSlots + " must be at least 1");
        }
        if (instance.isBlank()) {
            throw new IllegalArgumentException("instance must not be blank");
        }
    }

    /** A configuration whose process has not bound its address (see {@link #addressBound()}). */
    public NodeConfig(NodeId node, int maxSlots, SlotTiming timing, String instance) {
        this(node, maxSlots, timing, instance, false);
    }

    /** A configuration with a fresh instance id, whose process has not bound its address. */
    public static NodeConfig of(NodeId node, int maxSlots, SlotTiming timing) {
        return new NodeConfig(node, maxSlots, timing, newInstanceId());
    }

    /** The same configuration, for a process that bound its address and holds it (see {@link #addressBound()}). */
    public NodeConfig withAddressBound() {
        return new NodeConfig(node, maxSlots, timing, instance, true);
    }

    /** The same configuration, for a process that has not bound its address (see {@link #addressBound()}). */
    public NodeConfig withAddressUnbound() {
        return new NodeConfig(node, maxSlots, timing, instance, false);
    }

    /** The host part of the instance id (after the last {@code @}), or null if it has none. */
    public String host() {
        return hostOf(instance);
    }

    /** The host part of an instance id, or null for one without (written by an older version). */
    public static String hostOf(String instance) {
        int at = instance == null ? -1 : instance.lastIndexOf('@');
        return at < 0 ? null : instance.substring(at + 1);
    }

    /**
     * The process id and a random suffix, unique across restarts, and after an {@code @} the host's fingerprint (host
     * name, boot id, network namespace): readable in mongosh, e.g. {@code 4242-9f1c2ab0@worker-3:5c3e1a7f:4026531840}.
     * A restarted node that bound its address takes its slots back without waiting only from an instance with the same
     * fingerprint: binding an address proves that no other process holds it only within one network namespace of one
     * running kernel.
     */
    public static String newInstanceId() {
        byte[] random = new byte[4];
        new SecureRandom().nextBytes(random);
        return ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random) + "@" + HostFingerprint.current();
    }
}
