package io.standby.slot.internal;

import static io.standby.slot.SlotFields.BEAT;
import static io.standby.slot.SlotFields.EPOCH;
import static io.standby.slot.SlotFields.INSTANCE;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.UpdateOneModel;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * {@link SlotStore#claimAll} on MongoDB: one unordered bulk write of the claims, each its own {@code updateOne} with
 * the single claim's filter, so each is its own compare-and-set on its own document. The bulk's result counts the
 * matches but does not say which; so, only when some but not all matched, one read of which. A slot this call won is at
 * the epoch after the one it saw, under this instance, with this write's beat, and only its winner writes to it before
 * the winner's lease runs out; a slot read otherwise was lost, or taken from this node since (then not its any more).
 */
final class ClaimBatch {

    private ClaimBatch() {}

    static Set<String> send(
            MongoCollection<Document> slots, List<SlotStore.Claim> claims, SlotStore.Ownership owner, SlotStore one) {
        // A claim at an owner's beat needs an owner, as the single claim checks before it sends anything.
        List<SlotStore.Claim> sent = claims.stream()
                .filter(c -> c.ownerBeat().isEmpty()
                        || (c.seen().owner() != null && c.seen().instance() != null))
                .toList();
        if (sent.size() == 1) {
            SlotStore.Claim claim = sent.get(0);
            return one.claim(claim.seen(), owner, claim.ownerBeat())
                    ? Set.of(claim.seen().id())
                    : Set.of();
        }
        if (sent.isEmpty()) {
            return Set.of();
        }
        Bson take = SlotRules.takeUpdate(owner);
        long matched = slots.bulkWrite(
                        sent.stream()
                                .map(c -> new UpdateOneModel<Document>(
                                        SlotRules.claimFilter(c.seen(), c.ownerBeat()), take))
                                .toList(),
                        new BulkWriteOptions().ordered(false))
                .getMatchedCount();
        Map<String, Long> nextEpoch = new HashMap<>();
        sent.forEach(c -> nextEpoch.put(c.seen().id(), c.seen().epoch() + 1));
        if (matched == 0 || matched == sent.size()) {
            return matched == 0 ? Set.of() : Set.copyOf(nextEpoch.keySet());
        }
        Set<String> won = new HashSet<>();
        slots.find(Filters.and(
                        Filters.in("_id", nextEpoch.keySet()),
                        Filters.eq(INSTANCE, owner.instance()),
                        Filters.eq(BEAT, owner.beat())))
                .projection(Projections.include(EPOCH))
                .forEach(doc -> {
                    String id = doc.getString("_id");
                    if (doc.get(EPOCH, Number.class).longValue() == nextEpoch.get(id)) {
                        won.add(id);
                    }
                });
        return won;
    }
}
