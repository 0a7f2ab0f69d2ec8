package io.standby.slot;

/** How one claim of a slot went. */
public enum ClaimOutcome {
    /** The compare-and-set matched: this node owns the slot at the next epoch. */
    WON,
    /** The compare-and-set matched nothing: another node changed the slot first (a lost race). */
    CONFLICT,
    /** No answer (an error or a timeout); if the claim landed anyway, the next poll takes the slot back. */
    FAILED
}
