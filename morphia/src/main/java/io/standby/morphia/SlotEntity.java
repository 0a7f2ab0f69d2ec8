package io.standby.morphia;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import dev.morphia.annotations.Property;
import io.standby.slot.SlotFields;
import java.time.Instant;

/**
 * A slot as its owner wrote it into {@code slots}: {@code {_id: "slot-0", ip, port, instance, time, lease, late, epoch,
 * beat, changes, bucket}}, with {@code drain} and {@code linkEnd} while they apply. A free slot has no {@code ip},
 * {@code port} or {@code instance}, and a {@code time} of 1970 once released. The owner processes' documents are beside
 * them, in {@code owners} ({@link OwnerEntity}).
 *
 * <p>Which node owns slot-3: {@code datastore.find(SlotEntity.class).filter(Filters.eq(SlotFields.ID,
 * "slot-3")).first()}, then {@link #ip()} and {@link #port()}. Whether its lease is still valid is the database's
 * judgement ({@code time + lease} against the server's clock), not this entity's.
 */
@Entity(value = SlotFields.COLLECTION, useDiscriminator = false)
public class SlotEntity extends StandbyEntity {

    @Id
    private String id;

    @Property(SlotFields.IP)
    private String ip;

    @Property(SlotFields.PORT)
    private Integer port;

    @Property(SlotFields.INSTANCE)
    private String instance;

    @Property(SlotFields.TIME)
    private Instant time;

    @Property(SlotFields.LEASE)
    private Long lease;

    @Property(SlotFields.LATE)
    private Long late;

    @Property(SlotFields.EPOCH)
    private long epoch;

    @Property(SlotFields.BEAT)
    private Long beat;

    @Property(SlotFields.CHANGES)
    private long changes;

    @Property(SlotFields.BUCKET)
    private Integer bucket;

    @Property(SlotFields.DRAIN)
    private Drain drain;

    @Property(SlotFields.LINK_END)
    private Instant linkEnd;

    SlotEntity() {}

    /** {@code slot-N}. */
    public String id() {
        return id;
    }

    /** The owner's address, or null for a free slot. */
    public String ip() {
        return ip;
    }

    /** The owner's port, or null for a free slot. */
    public Integer port() {
        return port;
    }

    /** The owner's process ({@code pid-random@host fingerprint}), or null for a free slot. */
    public String instance() {
        return instance;
    }

    /** The owner's last renewal by the server's clock; 1970 for a slot never owned or released. */
    public Instant time() {
        return time;
    }

    /** The owner's lease in milliseconds, or null if the slot was never claimed. */
    public Long lease() {
        return lease;
    }

    /** The owner's late mark in milliseconds (fast failover), or null. */
    public Long late() {
        return late;
    }

    /** Raised at every change of owner; part of every robot's fencing token. */
    public long epoch() {
        return epoch;
    }

    /** The owner process's beat at its last write, or null. */
    public Long beat() {
        return beat;
    }

    /** Raised by every change to the slot's robots that its owner must see. */
    public long changes() {
        return changes;
    }

    /** The slot's bucket, 0 to 65,535, or null for a slot created before buckets. */
    public Integer bucket() {
        return bucket;
    }

    /** An operator's drain request for the owner, or null. */
    public Drain drain() {
        return drain;
    }

    /** When a standby found its watch link to the owner dead, by the server's clock, or null. */
    public Instant linkEnd() {
        return linkEnd;
    }

    /** An operator's drain request: {@code {instance, force}}. */
    @Entity(useDiscriminator = false)
    public static class Drain {

        @Property(SlotFields.DRAIN_INSTANCE)
        private String instance;

        @Property(SlotFields.DRAIN_FORCE)
        private boolean force;

        Drain() {}

        /** The owner process the request is meant for. */
        public String instance() {
            return instance;
        }

        /** Whether to hand the slot over even when no other node has room. */
        public boolean force() {
            return force;
        }
    }
}
