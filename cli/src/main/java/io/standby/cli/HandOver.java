package io.standby.cli;

import com.mongodb.client.model.Filters;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a closed node's slots were handed over, as the database records it: no slot names this process (its instance)
 * as owner any more. Asked after the node closed, on a connection of its own, so that the exit code of a node stopped
 * by SIGTERM is a fact a supervisor can act on: 0 when every slot was released (or taken), 1 when one still waits out
 * its lease, or when the database could not be asked.
 */
final class HandOver {

    private static final Logger log = LoggerFactory.getLogger(HandOver.class);

    private HandOver() {}

    static boolean confirmed(StandbyCli root, NodeConfig node) {
        long kept;
        try (StandbyDatabase db = root.connect(StandbyCli.ADMIN_TIMEOUT)) {
            // By instance, not ip:port: a slot this process released and a restarted twin claimed is handed over.
            kept = db.database()
                    .getCollection(SlotTable.COLLECTION)
                    .countDocuments(Filters.eq("instance", node.instance()));
        } catch (RuntimeException e) {
            log.error("Stopped, but could not confirm that the slots were handed over: {}", e.getMessage());
            return false;
        }
        if (kept > 0) {
            log.error(
                    "Stopped, but {} slot(s) still name this node as owner: standbys take them when the lease runs out",
                    kept);
            return false;
        }
        return true;
    }
}
