package io.standby.slot;

import java.time.Duration;
import java.util.Objects;

/**
 * Watch links: standbys keep a TCP connection to this node and take its slots about {@code 1.1 × lease} after the
 * connection dies, whatever the slot lease, under a deadline this node keeps itself (docs/DESIGN.md, <em>Watch
 * links</em>). Links are authenticated with the cluster's key, kept in the database (docs/SECURITY.md).
 *
 * @param lease the watch lease: how long after a link's last acknowledged ping the owner pauses, less a tenth; at least
 *     {@link #MIN_LEASE}
 * @param port the TCP port this node takes links on, on its ip; 0 for an ephemeral one (written into its owner
 *     document, where standbys find it)
 */
public record WatchLinks(Duration lease, int port) {

    /** The default watch lease, where the heartbeat is not shorter: about a second from a crash to a takeover. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(1);
    /** The shortest watch lease: shorter ones leave too little time for a renewal after a link's end. */
    public static final Duration MIN_LEASE = Duration.ofMillis(100);
    /** Below this heartbeat the late mark takes over as fast as links would, and links are off by default. */
    public static final Duration MIN_DEFAULT_HEARTBEAT = Duration.ofMillis(500);

    /** @throws IllegalArgumentException naming the bad value */
    public WatchLinks {
        Objects.requireNonNull(lease, "lease");
        if (lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException("invalid watch lease " + Durations.format(lease) + ": must be at least "
                    + Durations.format(MIN_LEASE));
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(
                    "invalid watch port " + port + ": must be from 0 to 65535 (0: any free one)");
        }
    }

    /** Links with {@code lease}, on an ephemeral port. */
    public static WatchLinks of(Duration lease) {
        return new WatchLinks(lease, 0);
    }

    /**
     * The links a node with {@code timing} gets when nothing is said: a watch lease of {@link #DEFAULT_LEASE}, or of
     * the heartbeat if that is shorter, on an ephemeral port; none (null) below a heartbeat of
     * {@link #MIN_DEFAULT_HEARTBEAT}, where the late mark (two heartbeats) is about as fast.
     */
    public static WatchLinks defaultFor(SlotTiming timing) {
        if (timing.heartbeat().compareTo(MIN_DEFAULT_HEARTBEAT) < 0) {
            return null;
        }
        return of(timing.heartbeat().compareTo(DEFAULT_LEASE) < 0 ? timing.heartbeat() : DEFAULT_LEASE);
    }
}
