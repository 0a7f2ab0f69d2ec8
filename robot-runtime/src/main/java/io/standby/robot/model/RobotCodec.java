package io.standby.robot.model;

import static io.standby.robot.model.RobotFields.*;

import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The robot document, readable in mongosh: {@code {_id, incarnation, type, slotId, priority, weight, config, desired,
 * state, node, context, seq, statusSeq, epoch, fences, restarts, lastError, target, request, updated}}.
 *
 * <p>{@code epoch} is the fencing token of the last runner that took the robot: the epoch of the slot named in
 * {@code slotId} at that time. A runner's writes are conditional on {@link RobotToken} {@code (_id, incarnation,
 * slotId, epoch, fences)}; a new owner of the slot raises {@code epoch} before it starts the robot, which rejects every
 * later write of the former runner. {@code seq} and {@code statusSeq} order one runner's writes, so that a late copy of
 * an older one matches nothing. {@code target} is a requested move, {@code request} the last operator change.
 *
 * <p>Robots are read and written with the driver's {@link Document}s, not a Morphia entity: {@code config} and
 * {@code context} are free-form documents, and a lenient decoder must skip one malformed robot instead of failing a
 * whole read. Decoding is lenient; see {@link RobotView}.
 */
public final class RobotCodec {

    private static final Logger log = LoggerFactory.getLogger(RobotCodec.class);
    /** Robots already warned about, with the problem, so that a poll loop does not repeat it. */
    private static final Map<Object, String> warned = new ConcurrentHashMap<>();

    private RobotCodec() {}

    /** A new robot, pending until the owner of its slot starts it; a new incarnation of its id. */
    public static Document newRobot(
            String id, String type, String slotId, int priority, double weight, Document config) {
        return newRobot(id, new ObjectId().toHexString(), type, slotId, priority, weight, config);
    }

    /**
     * A robot an add is inserting, as {@link #newRobot} but {@code desired: adding}: no node starts it until the add
     * has bound its id to {@code incarnation} in the id registry.
     */
    public static Document adding(
            String id, String incarnation, String type, String slotId, int priority, double weight, Document config) {
        Document robot = newRobot(id, incarnation, type, slotId, priority, weight, config);
        robot.put(DESIRED, Desired.ADDING.value());
        return robot;
    }

    private static Document newRobot(
            String id, String incarnation, String type, String slotId, int priority, double weight, Document config) {
        return new Document(ID, id)
                .append(INCARNATION, incarnation)
                .append(TYPE, type)
                .append(SLOT, slotId)
                .append(PRIORITY, priority)
                .append(WEIGHT, weight)
                .append(CONFIG, config)
                .append(DESIRED, Desired.RUNNING.value())
                .append(STATE, RobotState.PENDING.name())
                .append(NODE, null)
                .append(CONTEXT, new Document())
                .append(SEQ, 0L)
                .append(STATUS_SEQ, 0L)
                .append(EPOCH, 0L)
                .append(FENCES, 0L)
                .append(RESTARTS, 0)
                .append(LAST_ERROR, null)
                .append(REQUEST, request(slotId));
    }

    /**
     * The {@code request} an operator change writes: the robot's slot, so that the slot's owner can watch for it, and a
     * new value each time, so that a change stream reports it.
     */
    public static Document request(String slotId) {
        return new Document(REQUEST_SLOT, slotId).append(REQUEST_AT, new Date());
    }

    /** Decodes a document, or returns null after a warning if it is malformed. */
    public static RobotView parse(Document doc) {
        try {
            RobotView robot = new RobotView(
                    (String) doc.get(ID),
                    doc.getString(INCARNATION),
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
                    longOf(doc, FENCES, 0),
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

    /** A stored {@code state}: PENDING when missing (as {@link #parse} reads it), null when it names no state. */
    public static RobotState state(String stored) {
        if (stored == null) {
            return RobotState.PENDING;
        }
        try {
            return RobotState.valueOf(stored);
        } catch (IllegalArgumentException e) {
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
