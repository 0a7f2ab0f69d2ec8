package io.standby.robot.internal;

import com.mongodb.client.model.Updates;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Every filter and update of the id registry ({@link RobotIds}), written once as the documents sent to MongoDB: the
 * Mongo registry sends them and the simulation evaluates them. Each write names the entry exactly as read ({@code _id},
 * {@code incarnation}, {@code state}), so two operators that read the same stale entry cannot both replace it.
 */
public final class RobotIdRules {

    public static final String COLLECTION = "robotIds";
    public static final String ID = "_id";
    public static final String INCARNATION = "incarnation";
    public static final String STATE = "state";
    /** When the entry last changed, by the server's clock. */
    public static final String AT = "at";

    /**
     * How long a reservation holds an id before another add may take it over. An add takes milliseconds between its
     * reservation and its bind; one still unbound after a minute has died or stalled, and if it only stalled, its bind
     * fails and it deletes its robot, which never became startable.
     */
    public static final Duration RESERVATION = Duration.ofMinutes(1);

    private RobotIdRules() {}

    /**
     * A reservation's upsert: its filter names a fresh incarnation, so it matches only a retry of itself, and otherwise
     * inserts, which fails on the {@code _id} of any existing entry.
     */
    public static Bson reserveFilter(String id, String incarnation) {
        return new Document(ID, id).append(INCARNATION, incarnation).append(STATE, RobotIds.State.RESERVING.value());
    }

    /** The reservation: reserving, for this incarnation, now. */
    public static Bson reserveUpdate(String incarnation) {
        return Updates.combine(
                Updates.set(INCARNATION, incarnation),
                Updates.set(STATE, RobotIds.State.RESERVING.value()),
                Updates.currentDate(AT));
    }

    /** The entry as read; a reservation only once older than {@link #RESERVATION} by the server's clock. */
    public static Bson takeOverFilter(RobotIds.Entry stale) {
        Document filter = exactly(stale.id(), stale.incarnation(), stale.state());
        if (stale.state() == RobotIds.State.RESERVING) {
            // at + RESERVATION < $$NOW: the server's clock judges, never the operator's.
            filter.append(
                    "$expr",
                    new Document(
                            "$lt", List.of(new Document("$add", List.of("$" + AT, RESERVATION.toMillis())), "$$NOW")));
        }
        return filter;
    }

    /** This incarnation's reservation. */
    public static Bson bindFilter(String id, String incarnation) {
        return exactly(id, incarnation, RobotIds.State.RESERVING);
    }

    public static Bson bindUpdate() {
        return Updates.combine(Updates.set(STATE, RobotIds.State.BOUND.value()), Updates.currentDate(AT));
    }

    /** The entry exactly as it was when its add gave up or its robot was removed. */
    public static Bson releaseFilter(RobotIds.Entry entry) {
        return exactly(entry.id(), entry.incarnation(), entry.state());
    }

    private static Document exactly(String id, String incarnation, RobotIds.State state) {
        return new Document(ID, id).append(INCARNATION, incarnation).append(STATE, state.value());
    }

    /** Reads an entry; null for one that is malformed (hand-edited), which an add then reports. */
    public static RobotIds.Entry parse(Document doc) {
        Object id = doc.get(ID);
        String incarnation = doc.get(INCARNATION) instanceof String s ? s : null;
        String state = doc.get(STATE) instanceof String s ? s : null;
        for (RobotIds.State known : RobotIds.State.values()) {
            if (id instanceof String i && incarnation != null && known.value().equals(state)) {
                return new RobotIds.Entry(i, incarnation, known);
            }
        }
        return null;
    }
}
