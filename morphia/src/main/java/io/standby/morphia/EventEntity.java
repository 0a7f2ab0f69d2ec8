package io.standby.morphia;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import dev.morphia.annotations.Property;
import io.standby.slot.EventFields;
import java.time.Instant;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * An event of {@code events}: how a slot changed hands ({@code claimed}, {@code took-over}, {@code took-back},
 * {@code released}, {@code lost}, {@code paused}, {@code resumed}) or what happened to a robot's run
 * ({@code robot-started}, {@code robot-failed}, ...), stamped with the server's clock. The fields a type does not use
 * are null. Events are kept seven days, or fewer where the collection is capped.
 */
@Entity(value = EventFields.COLLECTION, useDiscriminator = false)
public class EventEntity extends StandbyEntity {

    @Id
    private ObjectId id;

    @Property(EventFields.TIME)
    private Instant time;

    @Property(EventFields.TYPE)
    private String type;

    @Property(EventFields.SLOT)
    private String slot;

    @Property(EventFields.EPOCH)
    private long epoch;

    @Property(EventFields.NODE)
    private String node;

    @Property(EventFields.ROBOT)
    private String robot;

    @Property(EventFields.DETAIL)
    private Document detail;

    @Property(EventFields.FROM)
    private String from;

    @Property(EventFields.HEARTBEAT)
    private Instant heartbeat;

    @Property(EventFields.HOW)
    private String how;

    @Property(EventFields.EVIDENCE)
    private String evidence;

    @Property(EventFields.REASON)
    private String reason;

    EventEntity() {}

    public ObjectId id() {
        return id;
    }

    /** When it was written, by the server's clock. */
    public Instant time() {
        return time;
    }

    public String type() {
        return type;
    }

    public String slot() {
        return slot;
    }

    /** The slot's epoch at the event. */
    public long epoch() {
        return epoch;
    }

    /** The node ({@code ip:port}) that recorded it. */
    public String node() {
        return node;
    }

    /** The robot, for a robot's events. */
    public String robot() {
        return robot;
    }

    /** A robot's event's details, or null. */
    public Document detail() {
        return detail;
    }

    /** The owner a slot was taken from ({@code ip:port}). */
    public String from() {
        return from;
    }

    /** That owner's last heartbeat, by the server's clock. */
    public Instant heartbeat() {
        return heartbeat;
    }

    /** How a took-over came about: {@code link}, {@code owner-gone} or {@code expired}. */
    public String how() {
        return how;
    }

    /** What a took-over relied on. */
    public String evidence() {
        return evidence;
    }

    /** Why a lease was lost. */
    public String reason() {
        return reason;
    }
}
