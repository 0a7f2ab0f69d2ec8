package io.standby.slot.internal;

import static io.standby.slot.SlotFields.BEAT;
import static io.standby.slot.SlotFields.CHANGES;
import static io.standby.slot.SlotFields.DRAIN;
import static io.standby.slot.SlotFields.EPOCH;
import static io.standby.slot.SlotFields.INSTANCE;
import static io.standby.slot.SlotFields.IP;
import static io.standby.slot.SlotFields.LATE;
import static io.standby.slot.SlotFields.LEASE;
import static io.standby.slot.SlotFields.LINK_END;
import static io.standby.slot.SlotFields.PORT;
import static io.standby.slot.SlotFields.TIME;

import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The shape a stored slot document must have for the protocol to read it. Documents are written by nodes, and also by
 * operators in mongosh, so every field is checked before it is trusted: a malformed slot is skipped with a warning,
 * never taken for a free one. The state a document shows is written once more, for the server to count:
 * {@link #censusPipeline()}.
 */
final class SlotShape {

    private SlotShape() {}

    /** The drain request on a slot; one that is not well-formed is no request (the slot itself is fine). */
    static SlotView.Drain drain(Document doc) {
        return doc.get(DRAIN) instanceof Document drain
                        && drain.get(SlotFields.DRAIN_INSTANCE) instanceof String instance
                ? new SlotView.Drain(instance, Boolean.TRUE.equals(drain.get(SlotFields.DRAIN_FORCE)))
                : null;
    }

    /** Why a document of the slots collection is not a slot the protocol can read; null if it is one. */
    static String problem(Document doc) {
        if (!(doc.get("_id") instanceof String)) {
            return "_id is not a string";
        }
        if (!isIntegral(doc.get(EPOCH))) {
            return "epoch is not a whole number";
        }
        if (!(doc.get(TIME) instanceof Date)) {
            return "time is not a date";
        }
        if (!isIntegral(doc.get(LEASE)) || ((Number) doc.get(LEASE)).longValue() < 0) {
            return "lease is not a non-negative number of milliseconds";
        }
        Object ip = doc.get(IP);
        Object port = doc.get(PORT);
        if (ip == null != (port == null)) {
            return "ip and port must both be set or both be null";
        }
        if (ip != null) {
            if (!(ip instanceof String s) || !isIntegral(port)) {
                return "ip must be a string and port a number";
            }
            try {
                new NodeId(s, ((Number) port).intValue());
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        Object instance = doc.get(INSTANCE);
        if (instance != null && !(instance instanceof String)) {
            return "instance is not a string";
        }
        return null;
    }

    /** The slot a document without a {@link #problem} holds, as the server saw it at {@code now}. */
    static SlotView view(Document doc, Instant now) {
        String ip = doc.getString(IP);
        NodeId owner = ip == null ? null : new NodeId(ip, ((Number) doc.get(PORT)).intValue());
        Instant time = doc.getDate(TIME).toInstant();
        return new SlotView(
                (String) doc.get("_id"),
                owner,
                doc.getString(INSTANCE),
                time,
                Duration.ofMillis(((Number) doc.get(LEASE)).longValue()),
                ((Number) doc.get(EPOCH)).longValue(),
                Duration.between(time, now),
                doc.get(CHANGES) instanceof Number changes ? changes.longValue() : 0,
                doc.get(LATE) instanceof Number late && late.longValue() > 0
                        ? Duration.ofMillis(late.longValue())
                        : null,
                drain(doc),
                isIntegral(doc.get(BEAT)) ? ((Number) doc.get(BEAT)).longValue() : 0,
                doc.get(LINK_END) instanceof Date linkEnd ? Duration.between(linkEnd.toInstant(), now) : null);
    }

    /**
     * The slots by {@link io.standby.slot.SlotState}, as {@link SlotView#state()} tells them, counted by the server at
     * its own time: one aggregation whose reply holds a {@code {_id: state, n: count}} per state present, whatever the
     * number of slots. Owner documents are not slots; a hand-edited document counts as its fields say.
     */
    static List<Bson> censusPipeline() {
        Document unowned =
                new Document("$eq", Arrays.asList(new Document("$ifNull", Arrays.asList("$" + IP, null)), null));
        Document released = new Document(
                "$and",
                List.of(
                        unowned,
                        new Document(
                                "$eq",
                                Arrays.asList(new Document("$ifNull", Arrays.asList("$" + INSTANCE, null)), null)),
                        new Document("$eq", List.of("$" + TIME, Date.from(Instant.EPOCH)))));
        Document expired = SlotRules.before(TIME, LEASE);
        Document state = cond(
                released, "FREE", cond(expired, cond(unowned, "FREE", "EXPIRED"), cond(unowned, "REVOKED", "OWNED")));
        Document slotsOnly = new Document(
                "$or",
                List.of(
                        new Document("_id", new Document("$lt", SlotFields.OWNER_PREFIX)),
                        new Document("_id", new Document("$gte", OwnerDocRules.ownerIdEnd()))));
        return List.of(
                new Document("$match", slotsOnly),
                new Document("$group", new Document("_id", state).append("n", new Document("$sum", 1))));
    }

    private static Document cond(Document test, Object then, Object otherwise) {
        return new Document("$cond", Arrays.asList(test, then, otherwise));
    }

    /** A whole number, as any driver or shell may have stored it. */
    static boolean isIntegral(Object value) {
        return value instanceof Integer
                || value instanceof Long
                || value instanceof Double d && d == Math.rint(d) && !d.isInfinite();
    }
}
