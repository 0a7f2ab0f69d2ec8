package io.standby.slot;

/**
 * Field names of the {@code slots} collection, in one place: the protocol's filters and updates ({@code SlotRules},
 * {@code OwnerDocRules}) are written with them, and so is anything that reads the documents, such as the
 * {@code standby-morphia} entities. They are public because they are the model an operator sees in mongosh: a slot
 * {@code {_id: "slot-0", ip, port, instance, time, lease, late, epoch, beat, changes, bucket}}, with {@code drain:
 * {instance, force}} while an operator asks the owner to drain and {@code linkEnd} after a standby found its watch link
 * dead. Beside them, in the {@value #OWNERS_COLLECTION} collection, one owner document per owner process, {@code {_id:
 * "owner:<ip:port>/<instance>", beat, at, watch, watchLease}}. Renaming one is a change of the stored format, not a
 * refactoring.
 */
public final class SlotFields {

    public static final String COLLECTION = "slots";
    /**
     * The owner processes' documents, one each, beside the slots: a standby watches these few, not every slot. Until
     * 2026-11 they lived in the slots collection itself; a node removes any left there (see {@code OwnerDocRules}).
     */
    public static final String OWNERS_COLLECTION = "owners";

    public static final String ID = "_id";
    public static final String IP = "ip";
    public static final String PORT = "port";
    /** Last heartbeat by the server's clock; 1970 once released. */
    public static final String TIME = "time";
    /** The owner's lease in milliseconds. */
    public static final String LEASE = "lease";
    /** Raised at every change of owner: part of every robot's fencing token. */
    public static final String EPOCH = "epoch";

    public static final String INSTANCE = "instance";
    /** Raised by every change to the slot's robots that its owner must see. */
    public static final String CHANGES = "changes";
    /**
     * The owner's late mark in milliseconds, or absent: an owner that writes it stops its robots before its heartbeat
     * is this old, so that a standby may take the slot early once the owner is that late and its process refuses
     * connects (fast failover). Without it, the slot waits for its lease.
     */
    public static final String LATE = "late";
    /**
     * An operator's drain request, {@code {instance, force}}: written only by {@code markDrain}, cleared by a release.
     */
    public static final String DRAIN = "drain";
    /** In a drain request: the owner process it is meant for. */
    public static final String DRAIN_INSTANCE = "instance";
    /** In a drain request: whether to hand the slot over even when no other node has room. */
    public static final String DRAIN_FORCE = "force";
    /**
     * The owner's beat: a number its process raises at every write it makes, and that a renewal writes into the
     * process's owner document and then into the slots it renews.
     */
    public static final String BEAT = "beat";
    /** When a standby found its watch link to the slot's owner dead, by the server's clock. */
    public static final String LINK_END = "linkEnd";
    /**
     * A hash of the id, 0 to 65,535, written when the slot is created and never changed: a poll reads the free slots of
     * a few buckets by it. Documents from before it have none.
     */
    public static final String BUCKET = "bucket";

    /** The start of every owner document's id: {@code owner:<ip:port>/<instance>}. Slot ids never start with it. */
    public static final String OWNER_PREFIX = "owner:";
    /** In an owner document: the server's time of its last beat. */
    public static final String AT = "at";
    /** In an owner document: the port its process takes watch links on. */
    public static final String WATCH = "watch";
    /** In an owner document: its process's watch lease in milliseconds, where standbys take it from. */
    public static final String WATCH_LEASE = "watchLease";

    private SlotFields() {}
}
