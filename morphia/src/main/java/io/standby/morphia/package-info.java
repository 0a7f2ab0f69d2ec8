/**
 * Morphia entities for Standby's collections, to read them from an application's own {@code Datastore}: which node owns
 * a slot, which robots failed, what a node reported, what happened to a slot. No node needs this package.
 *
 * <p><b>Read-only, by design.</b> Every write to these collections must carry the protocol's conditions in its filter:
 * a slot's epoch and owner, a robot's fencing token and sequence number. Those compare-and-set filters are written
 * once, in the stores of {@code standby-slot-core} and {@code standby-robot-runtime}, and the operator's tables
 * ({@code SlotTable}, {@code RobotTable}, {@code NodeTable}) are the way to change anything. A Morphia save replaces or
 * updates a document by its id alone, so it would bypass fencing: a robot's context saved back from a stale read
 * overwrites the checkpoints its runner wrote since; a slot saved back could undo a claim. So the entities have getters
 * only, this module offers no save or update helper, and {@link io.standby.morphia.StandbyEntity} refuses a save.
 *
 * <p>Field names come from {@link io.standby.slot.SlotFields}, {@link io.standby.slot.NodeFields},
 * {@link io.standby.slot.EventFields} and {@link io.standby.robot.model.RobotFields}, the constants the stores write
 * with: a renamed field cannot leave an entity behind.
 */
package io.standby.morphia;
