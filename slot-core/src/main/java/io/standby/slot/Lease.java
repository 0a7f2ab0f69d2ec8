package io.standby.slot;

import java.time.Duration;

/**
 * This node's ownership of one slot, from the claim that won it until it ends.
 *
 * <p>A lease is used once: after it ends it never becomes valid again; owning the slot again means a new claim, a new
 * lease and a higher epoch. {@link #isValid()} turns false at the latest when the node's own deadline passes
 * ({@code lease - fenceMargin} after the last successful renewal was sent), which is before any other node can take the
 * slot, so work checked against it never overlaps with the next owner's. With fast failover it is also not valid while
 * it is <em>paused</em>: no renewal has been acknowledged for the late mark minus its margin, after which other nodes
 * may take the slot over early from an owner whose address refuses connects. A renewal acknowledged in time ends the
 * pause under the same epoch ({@link SlotListener#paused}, {@link SlotListener#resumed}).
 */
public interface Lease {

    String slotId();

    /**
     * The fencing token: the slot's epoch while this lease lasts. Every change of owner increments it, so a write
     * conditional on this value is rejected once another node owns the slot.
     */
    long epoch();

    /** The node holding the lease. */
    NodeId node();

    /**
     * True until the lease ends or the node's local deadline passes, whichever comes first; false while the lease is
     * paused.
     */
    boolean isValid();

    /**
     * How long ago, on this node's clock, the last successful renewal was sent (the winning claim, before the first
     * renewal): the lease is valid for {@code lease - fenceMargin} from then.
     */
    Duration sinceRenewal();
}
