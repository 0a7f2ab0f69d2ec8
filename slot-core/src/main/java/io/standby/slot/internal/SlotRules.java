package io.standby.slot.internal;

import static io.standby.slot.SlotFields.BEAT;
import static io.standby.slot.SlotFields.BUCKET;
import static io.standby.slot.SlotFields.CHANGES;
import static io.standby.slot.SlotFields.DRAIN;
import static io.standby.slot.SlotFields.EPOCH;
import static io.standby.slot.SlotFields.INSTANCE;
import static io.standby.slot.SlotFields.IP;
import static io.standby.slot.SlotFields.LATE;
import static io.standby.slot.SlotFields.LEASE;
import static io.standby.slot.SlotFields.LINK_END;
import static io.standby.slot.SlotFields.PORT;
import static io.standby.slot.SlotFields.TIME;

import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Every filter and update of the slot protocol, written once, as the documents sent to MongoDB. The
 * {@link MongoSlotStore} sends them; the simulation evaluates these very documents on its own database (with
 * {@code $$NOW} from its server clock), so that a change to a rule here changes what both see, and the simulation
 * cannot keep a condition the database does not check.
 *
 * <p>They read as they would in mongosh: one flat filter document per write, so that a server finds the slot by
 * {@code _id}. Every safety condition is in the filter, expiry by the server's clock included.
 */
public final class SlotRules {

    private SlotRules() {}

    /**
     * What a poll reads of the slots, and nothing else: the free slots (released, revoked or never owned) of
     * {@code free}'s share, the slots held under this node's own ip:port (its own, its earlier processes', a twin's),
     * and the slots whose heartbeat was older than {@code lateBefore}, the previous poll's server time less a heartbeat
     * and a half, and held: late or expired. A live owner's slots are in none of these, so a poll of an idle world
     * reads this node's own slots and the owner documents (of the owners collection, in the same command, see
     * {@code MongoSlotStore#poll}), whatever the number of slots; and in a claim storm a node reads only its share of
     * the free slots ({@link FreeShare}), and those created before slots had a bucket. The branches are ranges of the
     * {@code bucket} index (the share's ranges, {@code ip: null} checked on the slots in them; {@code ip: null} alone
     * is a range of {@code ip_port}), of {@code ip_port} (this node's {@code ip, port}) and of {@code time}.
     */
    public static Bson pollFilter(NodeId me, Instant lateBefore, FreeShare free) {
        List<Document> branches = new ArrayList<>();
        if (free.coversEveryFreeSlot()) {
            branches.add(new Document(IP, null));
        } else if (!free.none()) {
            // Older documents have no bucket: {bucket: null} matches them, from the same index. One branch
            // with the ranges inside (a contained $or): a server reads the share's ranges of the bucket index
            // (about 2 % of the slots at 100 nodes, free or held) and checks {ip: null} on those, instead of
            // reading every free slot from ip_port and checking the ranges.
            List<Document> buckets = new ArrayList<>();
            buckets.add(new Document(BUCKET, null));
            for (FreeShare.Range range : free.ranges()) {
                buckets.add(new Document(BUCKET, new Document("$gte", range.from()).append("$lt", range.to())));
            }
            branches.add(new Document(IP, null).append("$or", buckets));
        }
        branches.add(new Document(IP, me.ip()).append(PORT, me.port()));
        // Held slots only: a free slot's time is 1970 (released, never owned) or its revoked owner's, and
        // free slots are the share's to read, or every poll would read every one.
        branches.add(new Document(
                        TIME, new Document("$gt", Date.from(Instant.EPOCH)).append("$lt", Date.from(lateBefore)))
                .append(IP, new Document("$ne", null)));
        return new Document("$or", branches);
    }

    /**
     * A slot's bucket, 0 to 65,535: a hash of its id, the same on every JVM, stored in the slot when it is created and
     * never changed, so that a poll can read a share of the free slots by an index range ({@link FreeShare}).
     */
    public static int bucket(String slotId) {
        return (int) (ClaimOrder.score(0, ClaimOrder.key(slotId)) >>> (Long.SIZE - FreeShare.BUCKET_BITS));
    }

    /**
     * The document a new slot is inserted as: nobody has owned it, claimable at once; nulls are shown, as in the seed.
     * Its bucket is written here once and never changed.
     */
    public static Document unowned(String slotId) {
        return new Document("_id", slotId)
                .append(BUCKET, bucket(slotId))
                .append(IP, null)
                .append(PORT, null)
                .append(TIME, Date.from(Instant.EPOCH))
                .append(LEASE, 0L)
                .append(EPOCH, 0L)
                .append(INSTANCE, null)
                .append(LATE, null)
                .append(CHANGES, 0L)
                .append(DRAIN, null);
    }

    /**
     * A claim of an expired slot: exactly the version the claimer observed (epoch and time), and expired by the
     * server's clock right now. A renewal, release or competing claim since changes time or epoch, and then this
     * matches nothing.
     */
    public static Bson claimFilter(SlotView seen) {
        return version(seen).append("$expr", before(TIME, LEASE));
    }

    /**
     * The same claim, by a standby that watched the owner's document, not the slot, stay at {@code ownerBeat} for the
     * lease: the slot must also still be that owner's, at exactly that beat. The write that put that beat into the slot
     * was sent no earlier than the one that put it into the owner document (the same command for a renewal; the
     * document's write just before, for a claim), and the owner's lease counts from that send, which came before the
     * standby first saw the document at that beat: the lease ran out on the owner's own clock since. Every write of an
     * owner carries a beat of its own, so no later one matches.
     */
    public static Bson claimFilter(SlotView seen, long ownerBeat) {
        return ownedVersion(seen).append(BEAT, ownerBeat).append("$expr", before(TIME, LEASE));
    }

    /**
     * The claim's filter as a claimer that waited on the slot (no beat) or on its owner's document at a beat sends it.
     */
    public static Bson claimFilter(SlotView seen, OptionalLong ownerBeat) {
        return ownerBeat.isPresent() ? claimFilter(seen, ownerBeat.getAsLong()) : claimFilter(seen);
    }

    /** The takeover's filter, as {@link #claimFilter(SlotView, OptionalLong)} chooses the claim's. */
    public static Bson claimFromGoneFilter(SlotView seen, OptionalLong ownerBeat) {
        return ownerBeat.isPresent() ? claimFromGoneFilter(seen, ownerBeat.getAsLong()) : claimFromGoneFilter(seen);
    }

    /**
     * A takeover from an owner found gone, before its lease ran out: the same version, owner included, and late by the
     * server's clock by the mark the owner itself wrote (so the owner has paused its robots).
     */
    public static Bson claimFromGoneFilter(SlotView seen) {
        return ownedVersion(seen)
                // A mark must be there: time + a missing field is null, which sorts below any date.
                .append(LATE, new Document("$gt", 0))
                .append("$expr", before(TIME, LATE));
    }

    /**
     * The same takeover, by a standby that watched the owner's document stay at {@code ownerBeat} (see
     * {@link #claimFilter(SlotView, long)}).
     */
    public static Bson claimFromGoneFilter(SlotView seen, long ownerBeat) {
        return ownedVersion(seen)
                .append(BEAT, ownerBeat)
                .append(LATE, new Document("$gt", 0))
                .append("$expr", before(TIME, LATE));
    }

    /** Taking back a slot held by the claimer's own identity, proven by its bound address: at the epoch seen. */
    public static Bson reclaimFilter(SlotView seen, SlotStore.Ownership owner) {
        return slot(seen.id(), seen.epoch())
                .append(IP, owner.node().ip())
                .append(PORT, owner.node().port())
                .append(INSTANCE, seen.instance());
    }

    /**
     * What every way of taking a slot writes: the owner, its lease and late mark, a new epoch, the server's time. It
     * removes what concerned the earlier owner only: a standby's mark of a dead link to it (kept, it would let a claim
     * by a link to the new owner pass the server's half of its wait before any standby marked the new owner) and an
     * operator's request that it drain.
     */
    public static Bson takeUpdate(SlotStore.Ownership owner) {
        // The beat of the owner document's write just before the claim, which the lease counts from; or, if
        // that write failed, one that no owner document shows (see claimFilter with a beat).
        Document set = new Document(IP, owner.node().ip())
                .append(PORT, owner.node().port())
                .append(INSTANCE, owner.instance())
                .append(LEASE, owner.lease().toMillis())
                .append(BEAT, owner.beat());
        Document update = lateMark(set, owner);
        Document unset = update.get("$unset", Document.class);
        if (unset == null) {
            unset = new Document();
            update.append("$unset", unset);
        }
        unset.append(LINK_END, "").append(DRAIN, "");
        return update.append("$inc", new Document(EPOCH, 1L)).append("$currentDate", new Document(TIME, true));
    }

    /** A renewal: this instance still owns the slot at this epoch. */
    public static Bson renewFilter(String slotId, long epoch, String instance) {
        return slot(slotId, epoch).append(INSTANCE, instance);
    }

    /**
     * A renewal of many slots in one {@code updateMany}: each held slot, at its own epoch, still owned by this
     * instance, as {@link #renewFilter} says it for one. The slots are grouped by epoch, one branch ({@code _id $in},
     * {@code epoch}, {@code instance}) per epoch, so that a filter of 10,000 slots is a list of ids and not 10,000
     * branches: a server matches each document it updates against the whole filter again, and the embedded one took two
     * seconds for 10,000 branches. Each id matches at most one document, so the count matched says whether every slot
     * was renewed.
     *
     * <p>A slot that carries a higher beat than {@code owner}'s matches nothing: the owner's writes land in the order
     * of their beats, so a renewal delivered late, after a newer one landed, changes nothing. The owner relies on it
     * when it stops writing its late mark ({@link OwnedLease#sendingLate}): an older write that carried the mark can
     * then never put it back.
     */
    public static Bson renewAllFilter(Map<String, Long> held, SlotStore.Ownership owner) {
        Map<Long, List<String>> byEpoch = new TreeMap<>();
        held.forEach((slotId, epoch) ->
                byEpoch.computeIfAbsent(epoch, e -> new ArrayList<>()).add(slotId));
        List<Document> each = byEpoch.entrySet().stream()
                .map(group -> new Document("_id", new Document("$in", group.getValue()))
                        .append(EPOCH, group.getKey())
                        .append(INSTANCE, owner.instance())
                        .append(BEAT, new Document("$lte", owner.beat())))
                .toList();
        return each.size() == 1 ? each.getFirst() : new Document("$or", each);
    }

    /**
     * A renewal's write: the lease and late mark, the server's time, and the renewal's beat, as its owner document gets
     * it.
     */
    public static Bson renewUpdate(SlotStore.Ownership owner) {
        return lateMark(new Document(LEASE, owner.lease().toMillis()), owner)
                .append("$max", new Document(BEAT, owner.beat()))
                .append("$currentDate", new Document(TIME, true));
    }

    /** A graceful release: the same condition as a renewal. */
    public static Bson releaseFilter(String slotId, long epoch, String instance) {
        return renewFilter(slotId, epoch, instance);
    }

    /** Clears the owner and any drain request, keeps the epoch, and dates the heartbeat 1970: claimable at once. */
    public static Bson releaseUpdate() {
        return new Document(
                        "$set",
                        new Document(IP, null)
                                .append(PORT, null)
                                .append(INSTANCE, null)
                                .append(TIME, Date.from(Instant.EPOCH)))
                .append("$unset", new Document(LATE, "").append(DRAIN, ""));
    }

    /** An operator's forced release: the version seen, while it has an owner. */
    public static Bson revokeFilter(SlotView seen) {
        return slot(seen.id(), seen.epoch()).append(IP, new Document("$ne", null));
    }

    /**
     * Clears the owner and raises the epoch to {@link #revokedEpoch}, but keeps {@code time}: standbys still wait out
     * the lease.
     */
    public static Bson revokeUpdate(SlotView seen) {
        return new Document(
                        "$set",
                        new Document(IP, null)
                                .append(PORT, null)
                                .append(INSTANCE, null)
                                .append(EPOCH, revokedEpoch(seen)))
                .append("$unset", new Document(LATE, ""));
    }

    /**
     * The epoch a forced release of {@code seen} leaves the slot at: one above the owner's, so that its renewals and
     * every token of its robots are refused from then on.
     */
    public static long revokedEpoch(SlotView seen) {
        return seen.epoch() + 1;
    }

    /** Every slot one instance of a node holds (an {@code updateMany}). */
    public static Bson markDrainFilter(NodeId node, String instance) {
        return new Document(IP, node.ip()).append(PORT, node.port()).append(INSTANCE, instance);
    }

    /** Writes the drain request alone: owner, epoch, time and lease stay as they are. */
    public static Bson markDrainUpdate(SlotView.Drain drain) {
        Document request =
                new Document(SlotFields.DRAIN_INSTANCE, drain.instance()).append(SlotFields.DRAIN_FORCE, drain.force());
        return new Document("$set", new Document(DRAIN, request));
    }

    /** The slot, whatever its state: for {@link #touchUpdate()}. */
    public static Bson touchFilter(String slotId) {
        return new Document("_id", slotId);
    }

    /** Raises {@code changes}: the slot's robots changed, and its owner should read them again. */
    public static Bson touchUpdate() {
        return new Document("$inc", new Document(CHANGES, 1L));
    }

    /** The version as read, owner included: ip, port and instance. */
    static Document ownedVersion(SlotView seen) {
        return version(seen)
                .append(IP, seen.owner().ip())
                .append(PORT, seen.owner().port())
                .append(INSTANCE, seen.instance());
    }

    private static Document slot(String slotId, long epoch) {
        return new Document("_id", slotId).append(EPOCH, epoch);
    }

    /**
     * The version as read: epoch, and the heartbeat to the millisecond of the wire (the embedded server keeps
     * {@code $currentDate} finer in memory, so equality would never match there).
     */
    private static Document version(SlotView seen) {
        Date time = Date.from(seen.time());
        return slot(seen.id(), seen.epoch())
                .append(TIME, new Document("$gte", time).append("$lt", new Date(time.getTime() + 1)));
    }

    /** {@code time + mark < $$NOW}, by the server's clock. */
    static Document before(String time, String mark) {
        return new Document("$lt", List.of(new Document("$add", Arrays.asList("$" + time, "$" + mark)), "$$NOW"));
    }

    private static Document lateMark(Document set, SlotStore.Ownership owner) {
        if (owner.late() == null) {
            return new Document("$set", set).append("$unset", new Document(LATE, ""));
        }
        return new Document("$set", set.append(LATE, owner.late().toMillis()));
    }
}
