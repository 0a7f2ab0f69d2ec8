package io.standby.slot.internal;

import static io.standby.slot.SlotFields.DRAIN;
import static io.standby.slot.SlotFields.EPOCH;
import static io.standby.slot.SlotFields.INSTANCE;
import static io.standby.slot.SlotFields.IP;
import static io.standby.slot.SlotFields.LEASE;
import static io.standby.slot.SlotFields.PORT;
import static io.standby.slot.SlotFields.TIME;

import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotView;
import java.util.Date;
import org.bson.Document;

/**
 * The shape a stored slot document must have for the protocol to read it. Documents are written by nodes, and also by
 * operators in mongosh, so every field is checked before it is trusted: a malformed slot is skipped with a warning,
 * never taken for a free one.
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

    /** A whole number, as any driver or shell may have stored it. */
    static boolean isIntegral(Object value) {
        return value instanceof Integer
                || value instanceof Long
                || value instanceof Double d && d == Math.rint(d) && !d.isInfinite();
    }
}
