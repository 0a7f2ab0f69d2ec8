package io.standby.slot.internal;

import static io.standby.slot.SlotFields.AT;
import static io.standby.slot.SlotFields.BEAT;
import static io.standby.slot.SlotFields.OWNER_PREFIX;
import static io.standby.slot.SlotFields.WATCH;
import static io.standby.slot.SlotFields.WATCH_LEASE;

import io.standby.slot.NodeId;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The owner documents, one per owner process ({@code owner:<ip:port>/<instance>}) in the {@code owners} collection:
 * their ids, what they say, and the writes and filters on them, written once as the documents sent to MongoDB, as
 * {@link SlotRules} does for the slots. Each renewal raises its owner document's {@code beat} just before it renews the
 * slots with the same beat.
 */
public final class OwnerDocRules {

    private OwnerDocRules() {}

    /**
     * The id of an owner process's document: its identity and instance, as its slots name it. Each renewal raises its
     * {@code beat} just before it renews the slots: a standby that watches these few documents, not every slot, sees
     * whether each owner still renews (see {@code Observations}).
     */
    public static String ownerId(NodeId node, String instance) {
        return OWNER_PREFIX + node + "/" + instance;
    }

    /** The owner whose document has this id: its ip:port and instance; null if the id is not one. */
    public static SlotStore.OwnerBeat owner(String ownerId, long beat, Duration age) {
        return owner(ownerId, beat, age, SlotStore.Watch.NONE);
    }

    /** The same, for an owner that takes watch links as {@code watch} says. */
    public static SlotStore.OwnerBeat owner(String ownerId, long beat, Duration age, SlotStore.Watch watch) {
        int slash = ownerId.indexOf('/');
        if (!isOwnerId(ownerId) || slash < 0) {
            return null;
        }
        try {
            return new SlotStore.OwnerBeat(
                    ownerId.substring(slash + 1),
                    NodeId.parse(ownerId.substring(OWNER_PREFIX.length(), slash)),
                    beat,
                    age,
                    watch);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Where an owner document says its process takes watch links: its {@code watch} port and {@code watchLease}, as
     * stored; {@link SlotStore.Watch#NONE} unless both are there and sensible.
     */
    public static SlotStore.Watch watch(Object port, Object lease) {
        if (port instanceof Number p
                && p.longValue() > 0
                && p.longValue() < 65536
                && lease instanceof Number l
                && l.longValue() > 0) {
            return new SlotStore.Watch(p.intValue(), Duration.ofMillis(l.longValue()));
        }
        return SlotStore.Watch.NONE;
    }

    /**
     * Whether an id is an owner document's. Until 2026-11 they lived in the slots collection, and a node of that time
     * may still write one there: a read of the slots skips them.
     */
    public static boolean isOwnerId(Object id) {
        return id instanceof String s && s.startsWith(OWNER_PREFIX);
    }

    /**
     * The owner documents that a node of before 2026-11 left in the slots collection and that stood still for
     * {@code after} by the server's clock: their processes are gone, or renew somewhere a standby of today does not
     * look. Removing one is safe, as {@link #sweepFilter} says.
     */
    public static Bson legacyFilter(Duration after) {
        return new Document("_id", new Document("$gte", OWNER_PREFIX).append("$lt", ownerIdEnd()))
                .append(
                        "$expr",
                        new Document(
                                "$lt",
                                List.of("$" + AT, new Document("$subtract", List.of("$$NOW", after.toMillis())))));
    }

    /** The first id after every owner document's, for an index range. */
    static String ownerIdEnd() {
        return OWNER_PREFIX.substring(0, OWNER_PREFIX.length() - 1)
                + (char) (OWNER_PREFIX.charAt(OWNER_PREFIX.length() - 1) + 1);
    }

    /** An owner process's document: created by its first renewal, if it is not there. */
    public static Bson beatFilter(SlotStore.Ownership owner) {
        return ownerFilter(ownerId(owner.node(), owner.instance()));
    }

    /** One owner document, whatever its beat. */
    public static Bson ownerFilter(String ownerId) {
        return new Document("_id", ownerId);
    }

    /**
     * A renewal's write to its owner document (an upsert), acknowledged before the slots' is sent. The beat only rises
     * ({@code $max}), so a late-delivered renewal cannot move it back.
     */
    public static Bson beatUpdate(SlotStore.Ownership owner) {
        Document update =
                new Document("$max", new Document(BEAT, owner.beat())).append("$currentDate", new Document(AT, true));
        return owner.watch().isOn()
                ? update.append(
                        "$set",
                        new Document(WATCH, owner.watch().port())
                                .append(WATCH_LEASE, owner.watch().lease().toMillis()))
                : update;
    }

    /**
     * Removes an owner document still at the beat seen: its process has not renewed for a long time. Safe whatever the
     * process does: without the document, standbys watch its slots one by one, and its next renewal writes it again.
     */
    public static Bson sweepFilter(String ownerId, long beat) {
        return new Document("_id", ownerId).append(BEAT, beat);
    }

    /**
     * An owner document; null for one without a whole-number beat or a date, which is no evidence: the slots of its
     * owner are then watched one by one.
     */
    static SlotStore.OwnerBeat owner(Document doc, Instant now) {
        if (!SlotShape.isIntegral(doc.get(BEAT)) || !(doc.get(AT) instanceof Date at)) {
            return null;
        }
        return owner(
                (String) doc.get("_id"),
                ((Number) doc.get(BEAT)).longValue(),
                Duration.between(at.toInstant(), now),
                watch(doc.get(WATCH), doc.get(WATCH_LEASE)));
    }
}
