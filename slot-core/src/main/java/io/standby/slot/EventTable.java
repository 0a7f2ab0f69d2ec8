package io.standby.slot;

import static io.standby.slot.EventFields.DETAIL;
import static io.standby.slot.EventFields.EPOCH;
import static io.standby.slot.EventFields.EVIDENCE;
import static io.standby.slot.EventFields.FROM;
import static io.standby.slot.EventFields.HEARTBEAT;
import static io.standby.slot.EventFields.HOW;
import static io.standby.slot.EventFields.ID;
import static io.standby.slot.EventFields.NODE;
import static io.standby.slot.EventFields.REASON;
import static io.standby.slot.EventFields.ROBOT;
import static io.standby.slot.EventFields.SLOT;
import static io.standby.slot.EventFields.TIME;
import static io.standby.slot.EventFields.TYPE;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
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
        return read(new Document(), Sorts.descending(TIME, ID), limit);
    }

    /**
     * The events of the last {@code since} by the database's clock (all if null), of one slot and one robot (all if
     * null), stamped at {@code notBefore} or later (all if null), oldest first.
     */
    public List<EventView> list(Duration since, String slot, String robot, Instant notBefore) {
        List<Bson> conditions = new ArrayList<>();
        if (since != null) {
            conditions.add(ServerAge.notOlderThan(TIME, since));
        }
        if (slot != null) {
            conditions.add(Filters.eq(SLOT, slot));
        }
        if (robot != null) {
            conditions.add(Filters.eq(ROBOT, robot));
        }
        if (notBefore != null) {
            conditions.add(Filters.gte(TIME, Date.from(notBefore)));
        }
        return read(conditions.isEmpty() ? new Document() : Filters.and(conditions), Sorts.ascending(TIME, ID), 0);
    }

    /** @param limit at most this many; 0 for all */
    private List<EventView> read(Bson filter, Bson order, int limit) {
        List<EventView> events = new ArrayList<>();
        for (Document doc : StandbyDatabase.safe(database.database().getCollection(EventFields.COLLECTION))
                .find(filter)
                .sort(order)
                .limit(limit)) {
            if (doc.get(ID) instanceof ObjectId id && doc.get(TIME) instanceof Date time) {
                Document detail = doc.get(DETAIL) instanceof Document d ? d : new Document();
                events.add(new EventView(
                        id.toHexString(),
                        time.toInstant(),
                        doc.getString(TYPE),
                        doc.getString(SLOT),
                        doc.get(EPOCH) instanceof Number n ? n.longValue() : 0,
                        doc.getString(NODE),
                        doc.getString(ROBOT),
                        doc.getString(FROM),
                        doc.get(HEARTBEAT) instanceof Date beat ? beat.toInstant() : null,
                        doc.getString(REASON),
                        detail.getString("error"),
                        detail.getString("to"),
                        doc.getString(HOW),
                        doc.getString(EVIDENCE)));
            }
        }
        return events;
    }
}
