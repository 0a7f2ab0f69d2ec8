package io.standby.slot;

import java.time.Duration;
import java.time.Instant;

/**
 * A slot document as read from the database, with its age judged by the database's clock.
 *
 * @param id {@code slot-0}, {@code slot-1}, ...
 * @param owner the owner's ip:port, or null when free
 * @param instance the owner's instance id, or null when free
 * @param time the last heartbeat, written with the server's clock ({@link Instant#EPOCH} once released)
 * @param lease the lease the owner wrote
 * @param epoch the fencing token: incremented at every change of owner
 * @param age how long ago {@code time} was, by the server's clock at the read
 * @param changes raised by every operator change to the slot's robots and every robot handed over into it, so that the
 *     owner re-reads its robots only when they changed
 * @param lateMark the owner's late mark, or null: its owner pauses its robots before its heartbeat is this old, so
 *     other nodes may take the slot over once it is that late and its process is found gone (fast failover); without it
 *     they wait for the lease
 * @param drain an operator's request that the owner instance it names drain, or null; it means nothing to any other
 *     instance (a later owner, or the same address restarted)
 * @param beat the beat of the owner's write that last took or renewed the slot, or 0 if none was written: a standby
 *     that watched the owner's document stand still at this beat may take the slot
 * @param linkEnd how long ago, by the server's clock at the read, a standby marked that its watch link to the owner
 *     died, or null: a claim by a dead link waits for this mark to age too (see {@code StandbyLinks})
 */
public record SlotView(
        String id,
        NodeId owner,
        String instance,
        Instant time,
        Duration lease,
        long epoch,
        Duration age,
        long changes,
        Duration lateMark,
        Drain drain,
        long beat,
        Duration linkEnd) {

    /**
     * A slot with no robot changes, written by an owner that declared no late mark and writes no beat, without a drain
     * request or a standby's mark on it; the withers add the rest.
     */
    public static SlotView of(
            String id, NodeId owner, String instance, Instant time, Duration lease, long epoch, Duration age) {
        return new SlotView(id, owner, instance, time, lease, epoch, age, 0, null, null, 0, null);
    }

    /** The same slot, with {@link #changes()} as given. */
    public SlotView withChanges(long changes) {
        return new SlotView(id, owner, instance, time, lease, epoch, age, changes, lateMark, drain, beat, linkEnd);
    }

    /** The same slot, with {@link #lateMark()} as given. */
    public SlotView withLateMark(Duration lateMark) {
        return new SlotView(id, owner, instance, time, lease, epoch, age, changes, lateMark, drain, beat, linkEnd);
    }

    /** The same slot, with {@link #drain()} as given. */
    public SlotView withDrain(Drain drain) {
        return new SlotView(id, owner, instance, time, lease, epoch, age, changes, lateMark, drain, beat, linkEnd);
    }

    /** The same slot, with {@link #beat()} as given. */
    public SlotView withBeat(long beat) {
        return new SlotView(id, owner, instance, time, lease, epoch, age, changes, lateMark, drain, beat, linkEnd);
    }

    /**
     * Owned, and its owner's heartbeat older than the late mark the owner declared, by the server's clock at the read:
     * the owner has paused its robots, so the slot may be taken over early if its process is found gone. False when the
     * owner declared no late mark.
     */
    public boolean isLate() {
        return owner != null && lateMark != null && age.compareTo(lateMark) > 0;
    }

    /**
     * An operator asked {@code instance}, while it held this slot, to hand its slots over and stop; with {@code force},
     * even when no other live node has room for them.
     */
    public record Drain(String instance, boolean force) {

        /** A drain of {@code instance} that hands over only what the other live nodes have room for. */
        public static Drain asked(String instance) {
            return new Drain(instance, false);
        }

        /** A drain of {@code instance} that hands over every slot, room or not. */
        public static Drain forced(String instance) {
            return new Drain(instance, true);
        }
    }

    /** Whether an operator asked this instance to drain while it held this slot. */
    public boolean drainAsked(String instance) {
        return drain != null && drain.instance().equals(instance);
    }

    /** Free, or owned but not renewed within its lease, by the server's clock at the read. */
    public boolean expired() {
        return age.compareTo(lease) > 0;
    }

    /**
     * Never owned, or released gracefully by its owner (the owner cleared and {@code time} set to the epoch of 1970):
     * nobody runs its robots, so it may be claimed without waiting.
     */
    public boolean released() {
        return owner == null && instance == null && time.equals(Instant.EPOCH);
    }

    /** How the slot looks from outside, for display and for choosing what to claim. */
    public SlotState state() {
        if (released()) {
            return SlotState.FREE;
        }
        if (expired()) {
            return owner == null ? SlotState.FREE : SlotState.EXPIRED;
        }
        return owner == null ? SlotState.REVOKED : SlotState.OWNED;
    }
}
