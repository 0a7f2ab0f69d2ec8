package io.standby.slot;

import java.time.Duration;

/**
 * Hooks into the life of this node's leases; the robot runtime implements it to start and stop robots.
 *
 * <p>Calls come from the protocol's own threads, possibly concurrently for different slots, so an implementation must
 * be thread-safe and must return quickly, except {@link #releasing(Lease)}. For every lease, {@link #acquired} is
 * called once, then at most one {@link #releasing}, then {@link #lost} exactly once; between {@link #acquired} and
 * {@link #lost}, pairs of {@link #paused} and {@link #resumed} (the last pause may end with {@link #lost} instead). An
 * exception thrown by a listener is logged and otherwise ignored.
 */
public interface SlotListener {

    /** This node won the slot. Start its work, fenced by {@link Lease#epoch()}. */
    default void acquired(Lease lease) {}

    /**
     * The same call with the slot as this node claimed it, for whoever records how the slot changed hands:
     * {@code claimed.owner()} is the former owner (null if it was free) and {@code claimed.time()} its last heartbeat.
     * The protocol calls this one; by default it calls {@link #acquired(Lease)}.
     */
    default void acquired(Lease lease, SlotView claimed) {
        acquired(lease);
    }

    /**
     * The node is shutting down gracefully and will release this slot when this method returns. Stop the slot's work
     * and persist its final state here; the lease keeps being renewed meanwhile. If the lease ends during this call,
     * {@link #lost} is called concurrently.
     */
    default void releasing(Lease lease) {}

    /**
     * The lease ended. Unless the reason is {@link LossReason#RELEASED}, stop every piece of the slot's work at once:
     * another node may take the slot over as soon as it can see the lease expired.
     */
    default void lost(Lease lease, LossReason reason) {}

    /**
     * No renewal of the lease has been acknowledged for the late mark minus its margin: stop every piece of the slot's
     * work at once, as for {@link #lost}, because other nodes may take the slot over early if a connect to this node is
     * refused, which happens to live processes too. The lease is kept: if a renewal is acknowledged in time,
     * {@link #resumed} follows, under the same epoch. Only with fast failover.
     */
    default void paused(Lease lease) {}

    /**
     * A renewal was acknowledged in time after {@link #paused}: the lease is valid again under the same epoch; start
     * the slot's work again from its persisted state.
     */
    default void resumed(Lease lease) {}

    /**
     * The slot of a lease this node holds, as its poll read it just now (it may have missed it): the robot runtime
     * reads the slot's robots again when {@link SlotView#changes()} moved.
     */
    default void observed(Lease lease, SlotView slot) {}

    /**
     * A claim of a slot this node does not hold, and how it went: for metrics. A win is also reported to
     * {@link #acquired(Lease, SlotView)}, after this.
     */
    default void claimed(SlotView slot, ClaimOutcome outcome) {}

    /**
     * This node took the slot over from another owner, after {@code unowned} without a heartbeat: from the former
     * owner's last heartbeat (by the database's clock, at the read that found the slot) to the claim; {@code how} says
     * whether the lease had run out or the owner's process was found gone, and {@code evidence} what showed it. Called
     * after {@link #acquired(Lease, SlotView)}.
     */
    default void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {}

    /** A renewal of the lease succeeded; {@code latency} is its round trip. */
    default void renewed(Lease lease, Duration latency) {}

    /**
     * A renewal got no answer (an error or a timeout). Not a loss yet: the lease ends only when its deadline passes
     * without a successful renewal, and then {@link #lost} says so.
     */
    default void renewalFailed(Lease lease) {}

    /**
     * The listeners, one after the other for every call; each is called even if one before it throws, and the first
     * failure is thrown once all have been called.
     */
    static SlotListener inOrder(SlotListener... listeners) {
        return ListenerList.of(listeners);
    }

    /** A listener that does nothing. */
    SlotListener NONE = new SlotListener() {};
}
