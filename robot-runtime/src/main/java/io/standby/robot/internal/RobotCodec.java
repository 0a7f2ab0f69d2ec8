package io.standby.robot.internal;

import io.standby.robot.Desired;
import io.standby.robot.RobotState;
import io.standby.robot.RobotView;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.standby.robot.internal.RobotFields.*;

/** Decodes robot documents leniently; see {@link RobotView}. */
public final class RobotCodec {

    private static final Logger log = LoggerFactory.getLogger(RobotCodec.class);
    /** Robots already warned about, with the problem, so that a poll loop does not repeat it. */
    private static final Map<Object, String> warned = new ConcurrentHashMap<>();

    private RobotCodec() {
    }

    /** Decodes a document, or returns null after a warning if it is malformed. */
    public static RobotView parse(Document doc) {
        try {
            RobotView robot = new RobotView(
                    (String) doc.get(ID),
                    doc.getString(TYPE),
                    doc.getString(SLOT),
                    intOf(doc, PRIORITY, 0),
                    doubleOf(doc, WEIGHT, 1),
                    doc.get(CONFIG, new Document()),
                    Desired.of(doc.getString(DESIRED)),
                    doc.getString(STATE) == null ? RobotState.PENDING : RobotState.valueOf(doc.getString(STATE)),
                    doc.getString(NODE),
                    doc.get(CONTEXT, new Document()),
                    longOf(doc, EPOCH, 0),
                    intOf(doc, RESTARTS, 0),
                    doc.getString(LAST_ERROR),
                    doc.getString(TARGET),
                    doc.get(UPDATED) instanceof Date d ? d.toInstant() : null);
            if (robot.id() == null || robot.slotId() == null) {
                throw new IllegalArgumentException("_id and slotId must be strings");
            }
            warned.remove(robot.id());
            return robot;
        } catch (RuntimeException e) {
            String problem = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (!problem.equals(warned.put(String.valueOf(doc.get(ID)), problem))) {
                log.warn("Skipping malformed robot document {}: {}", doc.get(ID), problem);
            }
            return null;
        }
    }

    private static int intOf(Document doc, String key, int fallback) {
        Object value = doc.get(key);
        return value == null ? fallback : Math.toIntExact(integral(key, value));
    }

    private static long longOf(Document doc, String key, long fallback) {
        Object value = doc.get(key);
        return value == null ? fallback : integral(key, value);
    }

    private static long integral(String key, Object value) {
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        if (value instanceof Double d && d == Math.rint(d)) {
            return d.longValue();
        }
        throw new IllegalArgumentException(key + " is not a whole number: " + value);
    }

    private static double doubleOf(Document doc, String key, double fallback) {
        Object value = doc.get(key);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        throw new IllegalArgumentException(key + " is not a number: " + value);
    }
}
