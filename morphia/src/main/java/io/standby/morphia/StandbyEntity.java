package io.standby.morphia;

import dev.morphia.annotations.PrePersist;

/**
 * What every entity of this module is: a view of a document that a node writes. Morphia loads it; it refuses to save
 * it, because a save would write past the conditions every write of Standby's carries (see the package's
 * documentation). Change slots, robots and nodes with the operator's tables instead.
 */
public abstract class StandbyEntity {

    StandbyEntity() {}

    /**
     * Refuses every save: called by Morphia before it writes an entity.
     *
     * @throws UnsupportedOperationException always
     */
    @PrePersist
    void refuseSave() {
        throw new UnsupportedOperationException(getClass().getSimpleName()
                + " is read-only: Standby's writes carry compare-and-set filters (epoch, fencing token) that a save"
                + " would bypass; use SlotTable, RobotTable or NodeTable");
    }
}
