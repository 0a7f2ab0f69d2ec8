package io.standby.slot;

/**
 * How a node's claims went since it started: won, lost to a concurrent claim of the same slot, and failed (no answer in
 * time; such a claim may have landed, and the next poll takes the slot back).
 */
public record ClaimCounts(long won, long lost, long failed) {}
