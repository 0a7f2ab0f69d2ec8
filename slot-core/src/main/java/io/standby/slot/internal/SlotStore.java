package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotState;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The database operations of the slot protocol. Every write of a slot is a compare-and-set whose filter carries all of
 * its safety conditions, so no read, however stale, can make it unsafe. The writes of an owner document
 * ({@link OwnerDocRules#ownerId}) carry none: they only raise a beat, which a claim that waited on that document then
 * requires in its own filter. Any operation may throw a runtime exception when the database cannot be reached in time.
 */
public interface SlotStore {

    /**
     * Every well-formed slot document, in id order; malformed ones are skipped with a warning, owner documents
     * silently.
     */
    List<SlotView> readAll();

    /**
     * How many slots are in each state now ({@link SlotView#state()}); a state no slot is in may be missing. A store
     * that cannot count on the server counts what {@link #readAll()} reads.
     */
    default Map<SlotState, Long> census() {
        Map<SlotState, Long> counts = new EnumMap<>(SlotState.class);
        readAll().forEach(slot -> counts.merge(slot.state(), 1L, Long::sum));
        return counts;
    }

    /**
     * A poll's read, in one command where the server can (see {@code MongoSlotStore#poll}): every owner document, and
     * the slots {@link SlotRules#pollFilter} names (free in {@code free}'s share, held under {@code me}'s ip:port, or
     * with a heartbeat older than {@code lateBefore}), in id order, with the server's time.
     */
    Poll poll(NodeId me, Instant lateBefore, FreeShare free);

    /** The slots held under {@code node}'s ip:port (by any instance), in id order: the check before a node joins. */
    default List<SlotView> readHeldBy(NodeId node) {
        return readAll().stream().filter(slot -> node.equals(slot.owner())).toList();
    }

    /** One slot, if it exists and is well-formed. */
    Optional<SlotView> read(String slotId);

    /**
     * Takes {@code seen} for {@code owner} if it is still exactly that version (epoch and time) and expired by the
     * server's clock: sets the owner, increments the epoch, stamps the server time. Returns true if this call won.
     */
    default boolean claim(SlotView seen, Ownership owner) {
        return claim(seen, owner, OptionalLong.empty());
    }

    /**
     * The same claim; with {@code ownerBeat}, the slot must also still be its owner instance's at that beat
     * ({@link SlotRules#claimFilter(SlotView, long)}): the claimer waited on the owner's document, not on the slot.
     */
    boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat);

    /**
     * The claims of {@code claims}, each exactly {@link #claim(SlotView, Ownership, OptionalLong)}'s compare-and-set on
     * its own slot, sent together where the store can (one round trip instead of one each); returns the ids of the
     * slots this call won. An exception means the outcome of each is unknown: any may have landed.
     */
    default Set<String> claimAll(List<Claim> claims, Ownership owner) {
        Set<String> won = new HashSet<>();
        for (Claim claim : claims) {
            if (claim(claim.seen(), owner, claim.ownerBeat())) {
                won.add(claim.seen().id());
            }
        }
        return won;
    }

    /** A claim of {@link #claimAll}: the slot as it was read, and the owner's beat if the claimer waited on that. */
    record Claim(SlotView seen, OptionalLong ownerBeat) {}

    /**
     * Takes {@code seen} for {@code owner} before its lease ran out, because its owner's process was found gone: only
     * if it is still exactly that version, owner included (epoch, time, ip, port and instance), so any renewal since
     * makes it match nothing. Sets the owner, increments the epoch (fencing every write of the former owner), stamps
     * the server time. Returns true if this call won.
     */
    default boolean claimFromGone(SlotView seen, Ownership owner) {
        return claimFromGone(seen, owner, OptionalLong.empty());
    }

    /** The same takeover; with {@code ownerBeat}, as {@link #claim(SlotView, Ownership, OptionalLong)}. */
    boolean claimFromGone(SlotView seen, Ownership owner, OptionalLong ownerBeat);

    /**
     * Takes over a slot from an owner whose watch link died ({@link StandbyLinks}): still that owner instance's at the
     * epoch and heartbeat seen, at a beat no higher than {@code maxBeat}, the highest that owner sent on the link, and
     * marked by {@link #markLinkEnd} at least {@code wait} ago by the server's clock. No lease or late mark is judged:
     * the owner paused every such slot's robots at the link's deadline, or has since written a higher beat. Returns
     * true if this call won.
     */
    boolean claimFromWatched(SlotView seen, Ownership owner, long maxBeat, Duration wait);

    /**
     * Stamps every slot of {@code node}'s {@code instance} with the server's time, as the moment a standby found its
     * watch link to that owner dead: a claim by the link waits for the stamp to age by the server's clock as well as by
     * the standby's own. Returns the number of slots stamped.
     */
    long markLinkEnd(NodeId node, String instance);

    /**
     * The same stamp on the slots of that owner that carry none: those it took since a standby's stamp (a take clears
     * the stamp), which a claim by a link that died before could not take without one. A stamp already there was
     * written after the take, so after the link died: it stays. Returns the number stamped.
     */
    long markLinkEndOfUnmarked(NodeId node, String instance);

    /**
     * Takes back a slot that {@code seen} shows held by the claimer's own identity, without waiting for its lease: only
     * valid because the node proved by binding its address that no other live process holds that identity. Increments
     * the epoch, so the earlier instance is fenced.
     */
    boolean reclaim(SlotView seen, Ownership owner);

    /** Stamps the server time on a slot this instance still owns at this epoch: {@link #renewAll} of one. */
    default boolean renew(String slotId, long epoch, Ownership owner) {
        return renewAll(Map.of(slotId, epoch), owner).renewed().contains(slotId);
    }

    /**
     * Renews the instance's owner document, and once that is acknowledged, in one command every slot of {@code held}
     * (slot id to epoch) that this instance still owns at that epoch, as {@link #renew} does one, with the owner's beat
     * ({@link Ownership#beat()}) written into both; if some slots were not renewed, reads those in another command, so
     * that the caller learns at once which it lost and how. If the owner document's write fails, no slot is renewed. A
     * slot this read shows at its epoch under this instance was renewed by the first: an epoch only rises, and a slot
     * comes back to this instance only at a new epoch.
     */
    Renewals renewAll(Map<String, Long> held, Ownership owner);

    /**
     * Gives up a slot this instance owns at this epoch, after its work stopped: clears the owner and any drain request
     * on it, keeps the epoch, and sets time to 1970 so that standbys may take it at once.
     */
    boolean release(String slotId, long epoch, String instance);

    /**
     * An operator's forced release of {@code seen}, if it is still that version and has an owner: clears the owner and
     * increments the epoch, so the owner's next renewal fails and writes fenced by the epoch are rejected, but keeps
     * {@code time}, so standbys still wait out the lease.
     */
    boolean revoke(SlotView seen);

    /**
     * Puts an operator's drain request ({@link SlotView#drain()}) on every slot the drain's instance of {@code node}
     * holds, so that the owner, which reads its slots at every poll, sees it at its next one. Writes nothing else:
     * owner, epoch, time and lease stay as they are, so no lease is weakened and no compare-and-set of the owner or of
     * a standby is disturbed. Returns how many slots it marked.
     */
    long markDrain(NodeId node, SlotView.Drain drain);

    /**
     * Raises the slot's {@code changes}: its robots changed, and its owner should read them again. One try;
     * {@link io.standby.slot.SlotTable#tellOwner} is the rule that callers use, with its retry.
     */
    void touch(String slotId);

    /** Creates a slot nobody has owned, claimable at once; false if it exists already. */
    boolean create(String slotId);

    /**
     * Raises the owner document of {@code owner}'s instance to its beat (an upsert): before claims that write that beat
     * into the slots they take, so that a standby may wait on the document for them too.
     */
    void beat(Ownership owner);

    /** Creates the indexes a poll's read needs, where the store has any; an index that exists is kept. */
    default void ensureIndexes() {}

    /**
     * Removes the owner document {@code ownerId} ({@link OwnerDocRules#ownerId}) if it is still at {@code beat}; true
     * if it did.
     */
    boolean sweepOwner(String ownerId, long beat);

    /** Removes the owner document {@code ownerId}, whatever its beat: that process has released everything. */
    void removeOwner(String ownerId);

    /**
     * Removes the owner documents that a node of before 2026-11 wrote into the slots collection and that stood still
     * for {@code after}; returns how many. A store that never had them removes none.
     */
    default long sweepLegacyOwners(Duration after) {
        return 0;
    }

    /**
     * What a poll read: the slots, in id order; the owner documents; and the server's time at the read, or null if
     * nothing matched (then there is no document to carry it).
     */
    record Poll(List<SlotView> slots, List<OwnerBeat> owners, Instant serverNow) {

        public Poll {
            slots = List.copyOf(slots);
            owners = List.copyOf(owners);
        }

        /** Each owner document's beat, by its id. */
        public Map<String, Long> beats() {
            Map<String, Long> beats = new HashMap<>();
            owners.forEach(owner -> beats.put(OwnerDocRules.ownerId(owner.node(), owner.instance()), owner.beat()));
            return beats;
        }
    }

    /**
     * One owner process's document: its instance, its ip:port, its beat, and how long ago, by the server's clock, it
     * was last raised.
     */
    record OwnerBeat(String instance, NodeId node, long beat, Duration age, Watch watch) {

        /** An owner without watch links. */
        public OwnerBeat(String instance, NodeId node, long beat, Duration age) {
            this(instance, node, beat, age, Watch.NONE);
        }
    }

    /**
     * Where an owner process takes watch links ({@link OwnerLinks}) and its watch lease, as its owner document shows
     * them: a standby takes the lease from here, written through the database, never from the wire.
     *
     * @param port 0 without watch links
     * @param lease null without watch links
     */
    record Watch(int port, Duration lease) {

        public static final Watch NONE = new Watch(0, null);

        /** Whether the owner takes links. */
        public boolean isOn() {
            return port > 0 && lease != null && lease.isPositive();
        }
    }

    /**
     * What a renewal of many slots found: the ids renewed, and the others as they are now; a held slot in neither no
     * longer exists.
     */
    record Renewals(Set<String> renewed, Map<String, SlotView> others) {

        public Renewals {
            renewed = Set.copyOf(renewed);
            others = Map.copyOf(others);
        }

        public static Renewals all(Map<String, Long> held) {
            return new Renewals(held.keySet(), Map.of());
        }

        /** From the held slots as read after a renewal that matched fewer than all of them. */
        public static Renewals judge(Map<String, Long> held, String instance, List<SlotView> now) {
            Set<String> renewed = new HashSet<>();
            Map<String, SlotView> others = new HashMap<>();
            for (SlotView slot : now) {
                Long epoch = held.get(slot.id());
                if (epoch == null) {
                    continue;
                }
                if (slot.epoch() == epoch && instance.equals(slot.instance())) {
                    renewed.add(slot.id());
                } else {
                    others.put(slot.id(), slot);
                }
            }
            return new Renewals(renewed, others);
        }
    }

    /**
     * Who owns a slot: identity, process instance, the lease it writes, its late mark (null for an owner that does not
     * pause its robots at that mark, whose slot is then never taken over early), and the beat of this one write: a
     * number the process raises for each write, so that no two of its writes carry the same one; and where it takes
     * watch links ({@link OwnerLinks}), if it does.
     */
    record Ownership(NodeId node, String instance, Duration lease, Duration late, long beat, Watch watch) {

        public Ownership(NodeId node, String instance, Duration lease, Duration late, long beat) {
            this(node, instance, lease, late, beat, Watch.NONE);
        }

        /** An owner without a late mark. */
        public Ownership(NodeId node, String instance, Duration lease) {
            this(node, instance, lease, null);
        }

        public Ownership(NodeId node, String instance, Duration lease, Duration late) {
            this(node, instance, lease, late, 0);
        }

        /** The same owner, for a write with {@code beat}. */
        public Ownership withBeat(long beat) {
            return new Ownership(node, instance, lease, late, beat, watch);
        }

        /** The same write without the late mark: from an owner a watch link covers. */
        public Ownership withoutLate() {
            return new Ownership(node, instance, lease, null, beat, watch);
        }

        /** The same owner, taking watch links as {@code watch} says (written into its owner document). */
        public Ownership withWatch(Watch watch) {
            return new Ownership(node, instance, lease, late, beat, watch);
        }
    }
}
