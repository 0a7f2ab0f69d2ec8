package io.standby.slot;

/** How a slot looks in the database, judged by the database's clock at the read. */
public enum SlotState {
    /** Never owned, released, or revoked long enough ago: claimable. */
    FREE,
    /** Owned and renewed within its lease. */
    OWNED,
    /** Owned, but not renewed within its lease: standbys take it over. */
    EXPIRED,
    /** Released by an operator; its former owner's lease has not run out yet, so nobody may take it yet. */
    REVOKED
}
