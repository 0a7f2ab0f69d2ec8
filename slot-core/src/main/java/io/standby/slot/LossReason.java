package io.standby.slot;

/** Why a lease ended. */
public enum LossReason {
    /** A renewal matched nothing: another node owns the slot now (its epoch moved on). */
    TAKEN,
    /** An operator released the slot by force ({@code standby slots release}); the epoch moved on. */
    REVOKED,
    /**
     * No renewal succeeded for {@code lease - fenceMargin} on this node's clock: it stopped on its own,
     * before any other node could see the lease expired (the database was slow, unreachable, or this
     * process was paused).
     */
    FENCED,
    /** This node released the slot gracefully, after {@link SlotListener#releasing(Lease)} returned. */
    RELEASED,
    /** The slot document disappeared or became unreadable. */
    VANISHED
}
