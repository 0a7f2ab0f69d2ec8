package io.standby.slot.internal;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import java.time.Instant;

/**
 * The slot document as stored in the {@code slots} collection. Field names follow the seed so that mongosh shows the
 * model: {@code {_id: "slot-0", ip, port, time, lease, late, epoch, instance, changes}}, and {@code drain: {instance,
 * force}} while an operator asks the owner to drain.
 */
@Entity(value = SlotDocument.COLLECTION, useDiscriminator = false)
public class SlotDocument {

    public static final String COLLECTION = "slots";

    public static final String IP = "ip";
    public static final String PORT = "port";
    public static final String TIME = "time";
    public static final String LEASE = "lease";
    public static final String EPOCH = "epoch";
    public static final String INSTANCE = "instance";
    public static final String CHANGES = "changes";
    public static final String LATE = "late";
    /**
     * An operator's drain request, {@code {instance, force}}: written only by {@code markDrain}, cleared by a release.
     */
    public static final String DRAIN = "drain";
    /**
     * The owner's beat: a number its process raises at every write it makes, and that a renewal writes both into the
     * slots it renews and into the process's owner document (see {@link OwnerDocRules#ownerId}).
     */
    public static final String BEAT = "beat";
    /**
     * When a standby found its watch link to the slot's owner dead, by the server's clock (see {@code StandbyLinks}).
     */
    public static final String LINK_END = "linkEnd";
    /**
     * A hash of the id, 0 to 65,535, written when the slot is created and never changed: a poll reads the free slots of
     * a few buckets by it ({@code FreeShare}). Documents from before it have none.
     */
    public static final String BUCKET = "bucket";

    @Id
    String id;

    String ip;
    Integer port;
    /** Last heartbeat by the server's clock; 1970 once released. */
    Instant time;
    /** The owner's lease in milliseconds. */
    long lease;

    long epoch;
    String instance;
    /**
     * The owner's late mark in milliseconds, or null: an owner that writes it stops its robots before its heartbeat is
     * this old, so that a standby may take the slot early once the owner is that late and its process refuses connects
     * (fast failover). Without it, the slot waits for its lease.
     */
    Long late;
    /** Raised by every change to the slot's robots that its owner must see. */
    long changes;
    /** Mapped only so that a release may clear it; written with the driver by {@code markDrain}. */
    java.util.Map<String, Object> drain;

    SlotDocument() {
        // for Morphia
    }

    /** A slot nobody has owned yet: claimable at once. */
    public static SlotDocument unowned(String id) {
        SlotDocument slot = new SlotDocument();
        slot.id = id;
        slot.time = Instant.EPOCH;
        return slot;
    }
}
