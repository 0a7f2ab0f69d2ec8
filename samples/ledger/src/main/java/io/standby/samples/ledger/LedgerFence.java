package io.standby.samples.ledger;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * One document per ledger robot, {@code {_id: robot, slot, epoch, next, time}}, naming the run that may append: the run
 * of {@code slot} at {@code epoch}. A run takes it when it starts, and every batch begins with a compare-and-set on it,
 * so a run whose fence was taken by a later run starts no further batch.
 *
 * <p>Epochs are ordered only within one slot (a robot moved to another slot starts over at that slot's epoch), so a run
 * may take the fence from an earlier epoch of its own slot, or from any run of another slot, but never from a later
 * epoch of its own slot. Between slots the order comes from the robot runtime instead: a run that finds its fence taken
 * asks the runtime, with a checkpoint, whether it is still the robot's run, and takes the fence back only if so
 * ({@link LedgerRobot}).
 *
 * <p>What a fence cannot do without multi-document transactions: make the check and the insert of the outputs one
 * atomic step. An insert already past its check (in flight, or a paused thread) can still land after a later run took
 * the fence. {@link LedgerBook} makes that harmless.
 */
final class LedgerFence {

    private final MongoCollection<Document> fences;
    private final String robot;
    private final String slot;
    private final long epoch;

    LedgerFence(MongoCollection<Document> fences, String robot, String slot, long epoch) {
        this.fences = fences;
        this.robot = robot;
        this.slot = slot;
        this.epoch = epoch;
    }

    /**
     * Takes the fence for this run, creating it if there is none, unless a later epoch of this run's slot holds it.
     * {@code next} is where this run appends from.
     *
     * @return whether this run holds the fence now
     */
    boolean take(long next) {
        Bson mayTake = Filters.and(
                Filters.eq("_id", robot), Filters.or(Filters.ne("slot", slot), Filters.lte("epoch", epoch)));
        Bson holder = Updates.combine(
                Updates.set("slot", slot),
                Updates.set("epoch", epoch),
                Updates.max("next", next),
                Updates.currentDate("time"));
        try {
            // An upsert: no fence yet inserts one; a fence this run may not take makes the upsert try to
            // insert a second document with this _id, which the _id index refuses.
            fences.updateOne(mayTake, holder, new UpdateOptions().upsert(true));
            return true;
        } catch (MongoWriteException e) {
            if (e.getError().getCategory() == ErrorCategory.DUPLICATE_KEY) {
                return false;
            }
            throw e;
        }
    }

    /**
     * The check before a batch: this run still holds the fence, and appends up to (excluding) {@code next}.
     *
     * @return false if another run took the fence
     */
    boolean advance(long next) {
        return fences.updateOne(
                                Filters.and(
                                        Filters.eq("_id", robot), Filters.eq("slot", slot), Filters.eq("epoch", epoch)),
                                Updates.combine(Updates.max("next", next), Updates.currentDate("time")))
                        .getMatchedCount()
                == 1;
    }

    @Override
    public String toString() {
        return robot + "@" + slot + ":" + epoch;
    }
}
