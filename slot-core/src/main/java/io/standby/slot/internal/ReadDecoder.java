package io.standby.slot.internal;

import io.standby.slot.SlotView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The documents of a read, decoded by hand, so that a hand-edited slot is skipped with a warning instead of failing the
 * whole read and stopping a node; each carries the server's {@code $$NOW}, by which ages are judged.
 */
final class ReadDecoder {

    private static final Logger log = LoggerFactory.getLogger(MongoSlotStore.class);

    /** Slots already warned about, with the reason, so that a poll loop does not repeat it. */
    private final Map<String, String> warned = new ConcurrentHashMap<>();

    /**
     * Slots and owner documents, told apart by id; an owner document that a node of before 2026-11 left in the slots
     * collection counts as one too, until it is swept.
     */
    SlotStore.Poll decode(List<Document> docs) {
        List<SlotView> slots = new ArrayList<>();
        List<SlotStore.OwnerBeat> owners = new ArrayList<>();
        Instant serverNow = null;
        for (Document doc : docs) {
            if (!(doc.get(MongoSlotStore.SERVER_NOW) instanceof Date now)) {
                throw new IllegalStateException("the database did not report its time");
            }
            serverNow = now.toInstant();
            if (OwnerDocRules.isOwnerId(doc.get("_id"))) {
                SlotStore.OwnerBeat owner = OwnerDocRules.owner(doc, serverNow);
                if (owner != null) {
                    owners.add(owner);
                }
                continue;
            }
            SlotView slot = slot(doc, serverNow);
            if (slot != null) {
                slots.add(slot);
            }
        }
        slots.sort(SlotIds.ORDER);
        return new SlotStore.Poll(slots, owners, serverNow);
    }

    /** Returns null, after a warning, for a document that does not have the slot's shape. */
    SlotView slot(Document doc, Instant now) {
        Object id = doc.get("_id");
        String problem = SlotShape.problem(doc);
        if (problem != null) {
            if (!problem.equals(warned.put(String.valueOf(id), problem))) {
                log.warn("Skipping malformed slot document {}: {}", doc.toJson(), problem);
            }
            return null;
        }
        warned.remove((String) id);
        return SlotShape.view(doc, now);
    }
}
