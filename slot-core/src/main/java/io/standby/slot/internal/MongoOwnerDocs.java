package io.standby.slot.internal;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.UpdateOptions;
import io.standby.slot.SlotFields;
import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owners collection on MongoDB, beside the slots: one document per owner process, written and matched by
 * {@link OwnerDocRules}. A poll joins it to its read of the slots with {@code $unionWith} where the server knows the
 * stage (MongoDB 4.4 and later, and {@code standby mongo}), and reads it in a command of its own where it does not.
 */
final class MongoOwnerDocs {

    private static final Logger log = LoggerFactory.getLogger(MongoOwnerDocs.class);
    /** What a server that does not know a stage answers (MongoDB before 4.4, a stock mongo-java-server). */
    private static final int UNKNOWN_STAGE = 40324;

    private final MongoCollection<Document> owners;
    /** False once the server refused {@code $unionWith}. */
    private volatile boolean joinable = true;

    MongoOwnerDocs(StandbyDatabase database) {
        this.owners = StandbyDatabase.safe(database.database().getCollection(SlotFields.OWNERS_COLLECTION));
    }

    /** Whether a read of the slots can bring the owner documents too: the server has not refused the join. */
    boolean joinable() {
        return joinable;
    }

    /** The last stage of a read of the slots that brings every owner document, each through {@code each}. */
    static Bson join(Bson each) {
        return Aggregates.unionWith(SlotFields.OWNERS_COLLECTION, List.of(each));
    }

    /** Whether {@code e} refuses the join; if so, from now on the owner documents are read apart. */
    boolean refusedJoin(MongoCommandException e) {
        if (e.getErrorCode() != UNKNOWN_STAGE
                && !String.valueOf(e.getErrorMessage()).contains("$unionWith")) {
            return false;
        }
        joinable = false;
        log.info("The database does not know $unionWith (MongoDB 4.4 and later do): each poll reads the owner "
                + "documents in a second command");
        return true;
    }

    /** Every owner document through {@code each}, in one command. */
    List<Document> read(Bson each) {
        return owners.aggregate(List.of(each))
                .batchSize(MongoSlotStore.ONE_BATCH)
                .into(new ArrayList<>());
    }

    /** Raises {@code owner}'s document to its beat, creating it if it is not there. */
    void beat(SlotStore.Ownership owner) {
        owners.updateOne(
                OwnerDocRules.beatFilter(owner), OwnerDocRules.beatUpdate(owner), new UpdateOptions().upsert(true));
    }

    boolean sweep(String ownerId, long beat) {
        return owners.deleteOne(OwnerDocRules.sweepFilter(ownerId, beat)).getDeletedCount() == 1;
    }

    void remove(String ownerId) {
        owners.deleteOne(OwnerDocRules.ownerFilter(ownerId));
    }
}
