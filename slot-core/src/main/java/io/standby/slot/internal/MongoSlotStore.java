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
import static io.standby.slot.SlotFields.PORT;
import static io.standby.slot.SlotFields.TIME;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotState;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The slot protocol on MongoDB, through the driver. Every write sends the documents {@link SlotRules} builds, the one
 * definition of the protocol's conditions, which the simulation evaluates as well; the filters hold every safety
 * condition, including expiry by the server's clock ({@code $expr} with {@code $$NOW}). Every write waits for a
 * majority: an acknowledged renewal must survive a failover.
 *
 * <p>Reads decode by hand, so a hand-edited slot is skipped instead of failing the whole read and stopping a node. They
 * project the server's {@code $$NOW}, so ages are judged by its clock; the explicit projection also makes the embedded
 * server copy each document instead of handing out one a concurrent update is changing.
 */
public final class MongoSlotStore implements SlotStore {

    static final String SERVER_NOW = "serverNow";
    /** Documents per reply: all, up to the server's 16 MB a batch (71,000 slots of 234 bytes, docs/SCALING.md). */
    static final int ONE_BATCH = 1_000_000;

    /** What each document of a read adds: the server's clock. */
    private static final Bson NOW = Aggregates.addFields(new Field<>(SERVER_NOW, "$$NOW"));

    private final MongoCollection<Document> raw;
    private final MongoOwnerDocs owners;
    private final ReadDecoder reads = new ReadDecoder();

    public MongoSlotStore(StandbyDatabase database) {
        // The database handed in, never a fresh one: it carries the operation timeout, also on a shared client.
        this.raw = StandbyDatabase.safe(database.database().getCollection(SlotFields.COLLECTION));
        this.owners = new MongoOwnerDocs(database);
    }

    /**
     * One command, the poll's: the documents and the server's clock at the read, in one aggregation. Under concurrent
     * updates the embedded server's aggregation can leave a document out of one read (real MongoDB does not); a poll
     * that misses a slot sees it at the next one, and no decision depends on a read alone: every safety condition is in
     * the compare-and-set's filter.
     */
    @Override
    public List<SlotView> readAll() {
        return readWithNow(List.of(), false).slots();
    }

    /**
     * The poll's read: one aggregation of what {@link SlotRules#pollFilter} names, with every owner document joined by
     * {@code $unionWith} (MongoDB 4.4 and later, and the embedded server of {@code standby mongo}). A server that does
     * not know the stage answers so once, and from then on the owner documents take a second command.
     */
    @Override
    public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
        List<Bson> match = List.of(Aggregates.match(SlotRules.pollFilter(me, lateBefore, free)));
        if (owners.joinable()) {
            try {
                return readWithNow(match, true);
            } catch (MongoCommandException e) {
                if (!owners.refusedJoin(e)) {
                    throw e;
                }
            }
        }
        Poll slots = readWithNow(match, false);
        Poll ownerDocs = reads.decode(owners.read(NOW));
        return new Poll(
                slots.slots(),
                ownerDocs.owners(),
                slots.serverNow() != null ? slots.serverNow() : ownerDocs.serverNow());
    }

    /**
     * The indexes the poll's branches need: {@code time} for the late ones, {@code ip, port} for a node's own,
     * {@code bucket} for its share of the free ones. None involves the shard key ({@code _id}), so each works per
     * shard. Creating one that exists is a no-op.
     */
    @Override
    public void ensureIndexes() {
        raw.createIndex(Indexes.ascending(TIME), new IndexOptions().name("time"));
        raw.createIndex(Indexes.ascending(IP, PORT), new IndexOptions().name("ip_port"));
        // The share's bucket ranges are ranges of this index, so a poll in a claim storm examines its share of
        // the slots (about 2 % at 100 nodes), not every free slot as {ip: null} in ip_port does: at 10,000
        // slots and 100 nodes that was a million documents a second on any server. A slot's bucket is written
        // when the slot is created and never changes, so no claim, renewal or release writes this index (an
        // {ip, bucket} index moved on each, and was dropped: BENCHMARKS, Chaos suite).
        raw.createIndex(Indexes.ascending(BUCKET), new IndexOptions().name("bucket"));
    }

    /**
     * The same read, of the slots held under one ip:port only: at a cold start a hundred nodes make it at once, and the
     * database sends each a few documents instead of all of them.
     */
    @Override
    public List<SlotView> readHeldBy(NodeId node) {
        return readWithNow(
                        List.of(Aggregates.match(
                                Filters.and(Filters.eq(IP, node.ip()), Filters.eq(PORT, node.port())))),
                        false)
                .slots();
    }

    /** The slots that {@code match} names, with the owner documents too if {@code withOwners}, in one command. */
    private Poll readWithNow(List<Bson> match, boolean withOwners) {
        List<Bson> pipeline = new ArrayList<>(match);
        // $addFields rather than $project: the same documents (slots hold nothing else), at about half the
        // embedded server's cost. One batch whatever the slot count: a getMore would be a second command.
        pipeline.add(NOW);
        if (withOwners) {
            pipeline.add(MongoOwnerDocs.join(NOW));
        }
        return reads.decode(raw.aggregate(pipeline).batchSize(ONE_BATCH).into(new ArrayList<>()));
    }

    /**
     * One slot: a find with an explicit projection (the embedded server then copies the document instead of handing out
     * one a concurrent update is half-way through), then the server's clock.
     */
    @Override
    public Optional<SlotView> read(String slotId) {
        if (OwnerDocRules.isOwnerId(slotId)) {
            return Optional.empty();
        }
        Document doc = raw.find(Filters.eq("_id", slotId))
                .projection(Projections.include(
                        IP, PORT, TIME, LEASE, LATE, EPOCH, INSTANCE, CHANGES, DRAIN, BEAT, SlotFields.LINK_END))
                .first();
        return doc == null ? Optional.empty() : Optional.ofNullable(reads.slot(doc, serverNow()));
    }

    /** One aggregation; the reply holds a document per state present. */
    @Override
    public Map<SlotState, Long> census() {
        Map<SlotState, Long> counts = new EnumMap<>(SlotState.class);
        for (Document group : raw.aggregate(SlotShape.censusPipeline())) {
            counts.put(SlotState.valueOf(group.getString("_id")), ((Number) group.get("n")).longValue());
        }
        return counts;
    }

    /** {@code $$NOW} on one document, reading none of its fields. */
    private Instant serverNow() {
        Document now = raw.aggregate(List.of(
                        Aggregates.limit(1),
                        Aggregates.project(Projections.fields(
                                Projections.excludeId(), Projections.computed(SERVER_NOW, "$$NOW")))))
                .first();
        if (now == null || !(now.get(SERVER_NOW) instanceof Date date)) {
            throw new IllegalStateException("the database did not report its time");
        }
        return date.toInstant();
    }

    @Override
    public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        if (ownerBeat.isPresent() && (seen.owner() == null || seen.instance() == null)) {
            return false;
        }
        return update(SlotRules.claimFilter(seen, ownerBeat), SlotRules.takeUpdate(owner));
    }

    @Override
    public Set<String> claimAll(List<Claim> claims, Ownership owner) {
        return ClaimBatch.send(raw, claims, owner, this);
    }

    @Override
    public boolean claimFromGone(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        if (seen.owner() == null || seen.instance() == null || seen.lateMark() == null) {
            return false;
        }
        return update(SlotRules.claimFromGoneFilter(seen, ownerBeat), SlotRules.takeUpdate(owner));
    }

    @Override
    public boolean claimFromWatched(SlotView seen, Ownership owner, long maxBeat, Duration wait) {
        if (seen.owner() == null || seen.instance() == null) {
            return false;
        }
        return update(LinkRules.claimFromWatchedFilter(seen, maxBeat, wait), SlotRules.takeUpdate(owner));
    }

    @Override
    public long markLinkEnd(NodeId node, String instance) {
        return raw.updateMany(LinkRules.markLinkEndFilter(node, instance), LinkRules.markLinkEndUpdate())
                .getMatchedCount();
    }

    @Override
    public long markLinkEndOfUnmarked(NodeId node, String instance) {
        return raw.updateMany(LinkRules.markLinkEndOfUnmarkedFilter(node, instance), LinkRules.markLinkEndUpdate())
                .getMatchedCount();
    }

    @Override
    public boolean reclaim(SlotView seen, Ownership owner) {
        return update(SlotRules.reclaimFilter(seen, owner), SlotRules.takeUpdate(owner));
    }

    /**
     * Two commands: the owner document's beat (an upsert), and once that is acknowledged, one {@code updateMany} over
     * the held slots, each at its own epoch; only if it matched fewer than all, one read of them. So an owner's renewal
     * costs two commands a heartbeat, however many slots it holds. The order is the beat claim's premise (see
     * {@link SlotRules#claimFilter(SlotView, long)}): no slot carries a beat before its owner document does. Until
     * 2026-11 both went in one bulk write on the slots collection; across two collections that needs MongoDB 8.0's
     * client-level bulk write, which neither MongoDB 7 nor the embedded server has.
     */
    @Override
    public Renewals renewAll(Map<String, Long> held, Ownership owner) {
        owners.beat(owner);
        long matched = raw.updateMany(SlotRules.renewAllFilter(held, owner), SlotRules.renewUpdate(owner))
                .getMatchedCount();
        if (matched == held.size()) {
            return Renewals.all(held);
        }
        List<SlotView> now = readWithNow(List.of(Aggregates.match(Filters.in("_id", held.keySet()))), false)
                .slots();
        return Renewals.judge(held, owner.instance(), now);
    }

    @Override
    public boolean release(String slotId, long epoch, String instance) {
        return update(SlotRules.releaseFilter(slotId, epoch, instance), SlotRules.releaseUpdate());
    }

    @Override
    public boolean revoke(SlotView seen) {
        return update(SlotRules.revokeFilter(seen), SlotRules.revokeUpdate(seen));
    }

    /**
     * One {@code updateMany} on the owner's ip, port and instance: slots another instance holds are not touched, and a
     * slot released or taken meanwhile no longer matches.
     */
    @Override
    public long markDrain(NodeId node, SlotView.Drain drain) {
        return raw.updateMany(SlotRules.markDrainFilter(node, drain.instance()), SlotRules.markDrainUpdate(drain))
                .getMatchedCount();
    }

    @Override
    public void touch(String slotId) {
        raw.updateOne(SlotRules.touchFilter(slotId), SlotRules.touchUpdate());
    }

    @Override
    public boolean create(String slotId) {
        try {
            raw.insertOne(SlotRules.unowned(slotId));
            return true;
        } catch (MongoWriteException e) {
            if (e.getError().getCategory() != ErrorCategory.DUPLICATE_KEY) {
                throw e;
            }
            return false;
        }
    }

    @Override
    public void beat(Ownership owner) {
        owners.beat(owner);
    }

    @Override
    public boolean sweepOwner(String ownerId, long beat) {
        return owners.sweep(ownerId, beat);
    }

    @Override
    public void removeOwner(String ownerId) {
        owners.remove(ownerId);
    }

    @Override
    public long sweepLegacyOwners(Duration after) {
        return raw.deleteMany(OwnerDocRules.legacyFilter(after)).getDeletedCount();
    }

    /**
     * A compare-and-set: true if it matched (w: majority, from {@link StandbyDatabase#safe}, even on another client's
     * collection).
     */
    private boolean update(Bson filter, Bson update) {
        return raw.updateOne(filter, update).getMatchedCount() == 1;
    }
}
