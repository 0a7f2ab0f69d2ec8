package io.standby.slot;

/**
 * Hooks into the life of this node's leases; the robot runtime implements it to start and stop robots.
 *
 * <p>Calls come from the protocol's own threads, possibly concurrently for different slots, so an
 * implementation must be thread-safe and must return quickly, except {@link #releasing(Lease)}.
 * For every lease, {@link #acquired} is called once, then at most one {@link #releasing}, then
 * {@link #lost} exactly once. An exception thrown by a listener is logged and otherwise ignored.
 */
public interface SlotListener {

    /** This node won the slot. Start its work, fenced by {@link Lease#epoch()}. */
    default void acquired(Lease lease) {
    }

    /**
     * The same call with the slot as this node claimed it, for whoever records how the slot changed hands:
     * {@code claimed.owner()} is the former owner (null if it was free) and {@code claimed.time()} its last
     * heartbeat. The protocol calls this one; by default it calls {@link #acquired(Lease)}.
     */
    default void acquired(Lease lease, SlotView claimed) {
        acquired(lease);
    }

    /**
     * The node is shutting down gracefully and will release this slot when this method returns.
     * Stop the slot's work and persist its final state here; the lease keeps being renewed meanwhile.
     * If the lease ends during this call, {@link #lost} is called concurrently.
     */
    default void releasing(Lease lease) {
    }

    /**
     * The lease ended. Unless the reason is {@link LossReason#RELEASED}, stop every piece of the slot's
     * work at once: another node may take the slot over as soon as it can see the lease expired.
     */
    default void lost(Lease lease, LossReason reason) {
    }

    /**
     * The slot of a lease this node holds, as its poll read it just now (it may have missed it): the
     * robot runtime reads the slot's robots again when {@link SlotView#changes()} moved.
     */
    default void observed(Lease lease, SlotView slot) {
    }

    /**
     * Both listeners, {@code first} then {@code second} for every call; the second is called even if the
     * first throws.
     */
    static SlotListener inOrder(SlotListener first, SlotListener second) {
        return new InOrder(first, second);
    }

    /** A listener that does nothing. */
    SlotListener NONE = new SlotListener() {
    };
}
