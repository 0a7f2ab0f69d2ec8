package io.standby.slot;

/** What a node says it is doing, in its registry document. */
public enum NodeState {
    /** Owns no slot: waits to take one over. */
    STANDBY,
    /** Owns at least one slot. */
    OWNER,
    /**
     * Hands its slots to standbys, one at a time, then stops; or lost its identity and claims nothing more. Either way,
     * claim plans count no room on it.
     */
    DRAINING
}
