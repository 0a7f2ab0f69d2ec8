package io.standby.morphia;

import dev.morphia.annotations.Entity;
import dev.morphia.annotations.Id;
import dev.morphia.annotations.Property;
import dev.morphia.query.filters.Filter;
import dev.morphia.query.filters.Filters;
import io.standby.slot.SlotFields;
import java.time.Instant;

/**
 * An owner process's document in {@code slots}: {@code {_id: "owner:<ip:port>/<instance>", beat, at}}, and
 * {@code watch} and {@code watchLease} when the process takes watch links. Every renewal raises its beat; standbys
 * watch these few documents rather than every slot. Query them with {@link #ownersOnly()}.
 */
@Entity(value = SlotFields.COLLECTION, useDiscriminator = false)
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

    /**
     * The filter that keeps the owner documents of the collection: their ids start with {@code owner:}, so they lie
     * between {@code "owner:"} and {@code "owner;"}, a range the {@code _id} index serves.
     */
    public static Filter ownersOnly() {
        String end = SlotFields.OWNER_PREFIX.substring(0, SlotFields.OWNER_PREFIX.length() - 1)
                + (char) (SlotFields.OWNER_PREFIX.charAt(SlotFields.OWNER_PREFIX.length() - 1) + 1);
        return Filters.and(Filters.gte(SlotFields.ID, SlotFields.OWNER_PREFIX), Filters.lt(SlotFields.ID, end));
    }

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
