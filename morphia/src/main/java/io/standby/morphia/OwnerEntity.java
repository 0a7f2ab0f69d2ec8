package io.standby.morphia;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import dev.morphia.annotations.Property;
import io.standby.slot.SlotFields;
import java.time.Instant;

/**
 * An owner process's document in {@code owners}: {@code {_id: "owner:<ip:port>/<instance>", beat, at}}, and
 * {@code watch} and {@code watchLease} when the process takes watch links. Every renewal raises its beat; standbys
 * watch these few documents rather than every slot.
 */
@Entity(value = SlotFields.OWNERS_COLLECTION, useDiscriminator = false)
public class OwnerEntity extends StandbyEntity {

    @Id
    private String id;

    @Property(SlotFields.BEAT)
    private long beat;

    @Property(SlotFields.AT)
    private Instant at;

    @Property(SlotFields.WATCH)
    private Integer watch;

    @Property(SlotFields.WATCH_LEASE)
    private Long watchLease;

    OwnerEntity() {}

    /** {@code owner:<ip:port>/<instance>}. */
    public String id() {
        return id;
    }

    /** The process's beat, raised at every renewal. */
    public long beat() {
        return beat;
    }

    /** The server's time of the last beat. */
    public Instant at() {
        return at;
    }

    /** The port the process takes watch links on, or null. */
    public Integer watch() {
        return watch;
    }

    /** The process's watch lease in milliseconds, or null. */
    public Long watchLease() {
        return watchLease;
    }
}
