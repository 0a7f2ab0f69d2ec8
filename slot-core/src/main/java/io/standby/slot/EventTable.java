package io.standby.slot;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.ServerAge;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;

/** What operators read of the {@code events} collection: how slots changed hands, oldest first. */
public final class EventTable {

    private final StandbyDatabase database;

    public EventTable(StandbyDatabase database) {
        this.database = database;
    }

    /** The newest {@code limit} events, newest first. */
    public List<EventView> recent(int limit) {
        return read(new Document(), Sorts.descending("time", "_id"), limit);
    }

    /**
     * The events of the last {@code since} by the database's clock (all if null), of one slot and one robot (all if
     * null), stamped at {@code notBefore} or later (all if null), oldest first.
     */
    public List<EventView> list(Duration since, String slot, String robot, Instant notBefore) {
        List<Bson> conditions = new ArrayList<>();
        if (since != null) {
            conditions.add(ServerAge.notOlderThan("time", since));
        }
        if (slot != null) {
            conditions.add(Filters.eq("slot", slot));
        }
        if (robot != null) {
            conditions.add(Filters.eq("robot", robot));
        }
        if (notBefore != null) {
            conditions.add(Filters.gte("time", Date.from(notBefore)));
        }
        return read(conditions.isEmpty() ? new Document() : Filters.and(conditions), Sorts.ascending("time", "_id"), 0);
    }

    /** @param limit at most this many; 0 for all */
    private List<EventView> read(Bson filter, Bson order, int limit) {
        List<EventView> events = new ArrayList<>();
        for (Document doc : StandbyDatabase.safe(database.database().getCollection(EventLog.COLLECTION))
                .find(filter)
                .sort(order)
                .limit(limit)) {
            if (doc.get("_id") instanceof ObjectId id && doc.get("time") instanceof Date time) {
                Document detail = doc.get("detail") instanceof Document d ? d : new Document();
                events.add(new EventView(
                        id.toHexString(),
                        time.toInstant(),
                        doc.getString("type"),
                        doc.getString("slot"),
                        doc.get("epoch") instanceof Number n ? n.longValue() : 0,
                        doc.getString("node"),
                        doc.getString("robot"),
                        doc.getString("from"),
                        doc.get("heartbeat") instanceof Date beat ? beat.toInstant() : null,
                        doc.getString("reason"),
                        detail.getString("error"),
                        detail.getString("to"),
                        doc.getString("how"),
                        doc.getString("evidence")));
            }
        }
        return events;
    }
}
