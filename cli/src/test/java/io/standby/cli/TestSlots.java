package io.standby.cli;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.SlotFields;
import io.standby.slot.StandbyDatabase;

/** Slot documents as the commands' tests need them, written straight into the database. */
final class TestSlots {

    private TestSlots() {}

    /**
     * {@code slotId} owned by 10.0.0.1:7700 (instance {@code 1-a@h:1:1}) with a 60 s lease renewed now, at its epoch
     * plus one, as a claim by a node that is not running leaves it.
     */
    static void ownedByTenZeroZeroOne(StandbyDatabase admin, String slotId) {
        admin.database()
                .getCollection(SlotFields.COLLECTION)
                .updateOne(
                        Filters.eq("_id", slotId),
                        Updates.combine(
                                Updates.set("ip", "10.0.0.1"),
                                Updates.set("port", 7700),
                                Updates.set("instance", "1-a@h:1:1"),
                                Updates.set("lease", 60_000L),
                                Updates.inc("epoch", 1L),
                                Updates.currentDate("time")));
    }
}
