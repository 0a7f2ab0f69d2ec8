package io.standby.slot;

/** Why a node could take a slot over from another owner. */
public enum Takeover {
    /** The owner's lease ran out by the database's clock, and this node had watched it unchanged for a lease. */
    EXPIRED,
    /**
     * Before the lease ran out: the owner's heartbeat was late and its address, which had accepted this node's connects
     * before, refused two connects in a row, so its process is gone (see {@code --fast-failover}).
     */
    OWNER_GONE,
    /**
     * Before the lease ran out: this node's watch link to the owner died (end of stream, an error, or silence), and 1.1
     * watch leases passed since its last ping by this node's clock and the database's, by which time the owner had
     * paused the slot's robots itself (see {@link WatchLinks}).
     */
    LINK
}
