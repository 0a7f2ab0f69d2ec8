package io.standby.robot.internal;

import static io.standby.robot.internal.SimDatabase.number;
import static io.standby.robot.internal.SimDatabase.string;
import static io.standby.slot.SlotFields.BEAT;
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
import io.standby.slot.internal.FreeShare;
import io.standby.slot.internal.LinkRules;
import io.standby.slot.internal.OwnerDocRules;
import io.standby.slot.internal.SlotRules;
import io.standby.slot.internal.SlotStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.conversions.Bson;

/**
 * The slot store's operations on the simulated database, with {@code MongoSlotStore}'s own filter and update documents
 * ({@link SlotRules}), evaluated by {@link BsonEval} as they are sent: a change to a rule there changes what the
 * simulation sees. Reads see the majority-committed state; writes are compare-and-sets on the primary.
 */
final class SimSlotStore implements SlotStore {

    private final SimDatabase db;

    SimSlotStore(SimDatabase db) {
        this.db = db;
    }

    @Override
    public List<SlotView> readAll() {
        return db.read("slots", () -> {
            List<SlotView> views = new ArrayList<>();
            long now = db.serverNowMs();
            db.slots.committed.values().forEach(doc -> views.add(view(doc, now)));
            return views;
        });
    }

    /**
     * As {@code MongoSlotStore} sends it: {@link SlotRules#pollFilter} on the slots, then every owner document. Two
     * reads, as on a server without {@code $unionWith}; one {@code $unionWith} is no snapshot either.
     */
    @Override
    public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
        Poll slots = db.read("poll", () -> {
            long now = db.serverNowMs();
            List<SlotView> views = new ArrayList<>();
            List<BsonDocument> found = db.slots.find(SlotRules.pollFilter(me, lateBefore, free));
            found.forEach(doc -> views.add(view(doc, now)));
            return new Poll(views, List.of(), found.isEmpty() ? null : Instant.ofEpochMilli(now));
        });
        return db.read("owners", () -> {
            long now = db.serverNowMs();
            List<OwnerBeat> owners = new ArrayList<>();
            List<BsonDocument> found = db.owners.find(new org.bson.Document());
            for (BsonDocument doc : found) {
                SlotStore.Watch watch = doc.containsKey(SlotFields.WATCH)
                        ? OwnerDocRules.watch(number(doc, SlotFields.WATCH), number(doc, SlotFields.WATCH_LEASE))
                        : SlotStore.Watch.NONE;
                owners.add(OwnerDocRules.owner(
                        SimDatabase.id(doc),
                        number(doc, BEAT),
                        Duration.ofMillis(now - doc.getDateTime(SlotFields.AT).getValue()),
                        watch));
            }
            Instant serverNow =
                    slots.serverNow() != null || found.isEmpty() ? slots.serverNow() : Instant.ofEpochMilli(now);
            return new Poll(slots.slots(), owners, serverNow);
        });
    }

    @Override
    public Optional<SlotView> read(String slotId) {
        if (OwnerDocRules.isOwnerId(slotId)) {
            return Optional.empty();
        }
        return db.read(
                slotId,
                () -> Optional.ofNullable(db.slots.committed.get(slotId)).map(doc -> view(doc, db.serverNowMs())));
    }

    /** As {@code MongoSlotStore} decodes a slot (the simulation writes only well-formed ones). */
    static SlotView view(BsonDocument doc, long nowMs) {
        String ip = string(doc, IP);
        NodeId owner = ip == null ? null : new NodeId(ip, number(doc, PORT).intValue());
        long timeMs = doc.getDateTime(TIME).getValue();
        Long late = number(doc, LATE);
        Long changes = number(doc, CHANGES);
        Long beat = number(doc, BEAT);
        Duration linkEnd =
                doc.get(LINK_END) instanceof BsonDateTime at ? Duration.ofMillis(nowMs - at.getValue()) : null;
        return new SlotView(
                SimDatabase.id(doc),
                owner,
                string(doc, INSTANCE),
                Instant.ofEpochMilli(timeMs),
                Duration.ofMillis(number(doc, LEASE)),
                number(doc, EPOCH),
                Duration.ofMillis(nowMs - timeMs),
                changes == null ? 0 : changes,
                late == null || late <= 0 ? null : Duration.ofMillis(late),
                drain(doc),
                beat == null ? 0 : beat,
                linkEnd);
    }

    private static SlotView.Drain drain(BsonDocument doc) {
        return doc.get(DRAIN) instanceof BsonDocument drain && drain.get("instance") instanceof BsonString instance
                ? new SlotView.Drain(
                        instance.getValue(), drain.get("force") instanceof BsonBoolean force && force.getValue())
                : null;
    }

    @Override
    public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        if (ownerBeat.isPresent() && (seen.owner() == null || seen.instance() == null)) {
            return false;
        }
        return update(
                "claim " + seen.id() + "@" + seen.epoch() + " by " + owner.node() + beat(ownerBeat),
                SlotRules.claimFilter(seen, ownerBeat),
                SlotRules.takeUpdate(owner),
                false);
    }

    @Override
    public boolean claimFromGone(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        if (seen.owner() == null || seen.instance() == null || seen.lateMark() == null) {
            return false;
        }
        return update(
                "claim from gone " + seen.id() + "@" + seen.epoch() + " by " + owner.node() + beat(ownerBeat),
                SlotRules.claimFromGoneFilter(seen, ownerBeat),
                SlotRules.takeUpdate(owner),
                true);
    }

    /**
     * An unordered bulk write, as MongoDB runs one: every claim is tried, each its own compare-and-set, whatever became
     * of the others; a failure of any is reported after all were tried, so the caller knows of none of them.
     */
    @Override
    public Set<String> claimAll(List<Claim> claims, Ownership owner) {
        Set<String> won = new HashSet<>();
        RuntimeException failure = null;
        for (Claim claim : claims) {
            try {
                if (claim(claim.seen(), owner, claim.ownerBeat())) {
                    won.add(claim.seen().id());
                }
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
        return won;
    }

    private static String beat(OptionalLong ownerBeat) {
        return ownerBeat.isPresent() ? " at owner beat " + ownerBeat.getAsLong() : "";
    }

    @Override
    public boolean claimFromWatched(SlotView seen, Ownership owner, long maxBeat, Duration wait) {
        if (seen.owner() == null || seen.instance() == null) {
            return false;
        }
        return db.write(
                "claim from watched " + seen.id() + "@" + seen.epoch() + " by " + owner.node() + " up to beat "
                        + maxBeat,
                () -> {
                    boolean matched = db.slots
                                    .update(
                                            LinkRules.claimFromWatchedFilter(seen, maxBeat, wait),
                                            SlotRules.takeUpdate(owner),
                                            false)
                                    .matched()
                            == 1;
                    if (matched) {
                        db.watchedTakeovers++;
                    }
                    return matched;
                });
    }

    @Override
    public long markLinkEnd(NodeId node, String instance) {
        return db.write(
                "mark link end of " + node + "/" + instance,
                () -> db.slots
                        .update(LinkRules.markLinkEndFilter(node, instance), LinkRules.markLinkEndUpdate(), true)
                        .matched());
    }

    @Override
    public long markLinkEndOfUnmarked(NodeId node, String instance) {
        return db.write(
                "mark link end of the unmarked slots of " + node + "/" + instance,
                () -> db.slots
                        .update(
                                LinkRules.markLinkEndOfUnmarkedFilter(node, instance),
                                LinkRules.markLinkEndUpdate(),
                                true)
                        .matched());
    }

    @Override
    public boolean reclaim(SlotView seen, Ownership owner) {
        return update(
                "reclaim " + seen.id() + "@" + seen.epoch() + " by " + owner.node(),
                SlotRules.reclaimFilter(seen, owner),
                SlotRules.takeUpdate(owner),
                false);
    }

    /**
     * As {@code MongoSlotStore} sends it: the owner document's upsert, then, once that is acknowledged, one updateMany,
     * and only if it matched fewer than all, one read. A fault between the two leaves the beat raised and the slots
     * not.
     */
    @Override
    public Renewals renewAll(Map<String, Long> held, Ownership owner) {
        if (owner.late() == null) {
            db.unmarkedRenewals++;
        }
        beat(owner);
        long matched = db.write(
                "renew " + held + " by " + owner.node() + " at beat " + owner.beat(),
                () -> db.slots
                        .update(SlotRules.renewAllFilter(held, owner), SlotRules.renewUpdate(owner), true)
                        .matched());
        if (matched == held.size()) {
            return Renewals.all(held);
        }
        List<SlotView> now = db.read("slots " + held.keySet(), () -> {
            List<SlotView> views = new ArrayList<>();
            long nowMs = db.serverNowMs();
            held.keySet()
                    .forEach(id -> Optional.ofNullable(db.slots.committed.get(id))
                            .ifPresent(doc -> views.add(view(doc, nowMs))));
            return views;
        });
        return Renewals.judge(held, owner.instance(), now);
    }

    @Override
    public boolean release(String slotId, long epoch, String instance) {
        return update(
                "release " + slotId + "@" + epoch,
                SlotRules.releaseFilter(slotId, epoch, instance),
                SlotRules.releaseUpdate(),
                false);
    }

    @Override
    public boolean revoke(SlotView seen) {
        return update(
                "revoke " + seen.id() + "@" + seen.epoch(),
                SlotRules.revokeFilter(seen),
                SlotRules.revokeUpdate(seen),
                false);
    }

    /** One compare-and-set, as {@code MongoSlotStore} sends it; a fast takeover is counted for the report. */
    private boolean update(String what, Bson filter, Bson update, boolean fromGone) {
        return db.write(what, () -> {
            boolean matched = db.slots.update(filter, update, false).matched() == 1;
            if (matched && fromGone) {
                db.fastTakeovers++;
            }
            return matched;
        });
    }

    @Override
    public long markDrain(NodeId node, SlotView.Drain drain) {
        return db.write(
                "mark drain of " + node,
                () -> db.slots
                        .update(
                                SlotRules.markDrainFilter(node, drain.instance()),
                                SlotRules.markDrainUpdate(drain),
                                true)
                        .matched());
    }

    @Override
    public void touch(String slotId) {
        db.write(
                "touch " + slotId,
                () -> db.slots.update(SlotRules.touchFilter(slotId), SlotRules.touchUpdate(), false));
    }

    @Override
    public void beat(Ownership owner) {
        db.write(
                "beat " + owner.instance() + " at " + owner.beat(),
                () -> db.owners.upsert(OwnerDocRules.beatFilter(owner), OwnerDocRules.beatUpdate(owner)));
    }

    @Override
    public boolean sweepOwner(String ownerId, long beat) {
        return db.write(
                "sweep " + ownerId + " at beat " + beat,
                () -> db.owners.deleteOne(OwnerDocRules.sweepFilter(ownerId, beat)));
    }

    @Override
    public void removeOwner(String ownerId) {
        db.write("remove " + ownerId, () -> db.owners.deleteOne(OwnerDocRules.ownerFilter(ownerId)));
    }

    @Override
    public boolean create(String slotId) {
        BsonDocument doc = BsonEval.bson(SlotRules.unowned(slotId));
        return db.write("create " + slotId, () -> db.slots.insert(doc));
    }
}
