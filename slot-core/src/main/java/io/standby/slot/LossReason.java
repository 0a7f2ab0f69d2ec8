package io.standby.slot;

/** Why a lease ended. */
public enum LossReason {
    /** A renewal matched nothing: another node owns the slot now (its epoch moved on). */
    TAKEN("another node owns it now"),
    /** An operator released the slot by force ({@code standby slots release}); the epoch moved on. */
    REVOKED("an operator released it"),
    /**
     * No renewal succeeded for {@code lease - fenceMargin} on this node's clock: it stopped on its own, before any
     * other node could see the lease expired (the database was slow, unreachable, or this process was paused).
     */
    FENCED("no renewal succeeded within the lease minus the fence margin"),
    /** This node released the slot gracefully, after {@link SlotListener#releasing(Lease)} returned. */
    RELEASED("released"),
    /** The slot document disappeared or became unreadable. */
    VANISHED("the slot document is gone");

    private final String description;

    LossReason(String description) {
        this.description = description;
    }

    /** In a few words, as a node's log says it: "Lost slot-3 at epoch 7: another node owns it now". */
    public String description() {
        return description;
    }
}
