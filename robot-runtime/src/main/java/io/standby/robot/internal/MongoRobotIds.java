package io.standby.robot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import io.standby.slot.StandbyDatabase;
import java.util.Optional;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The id registry on MongoDB, in {@code robotIds}, read and written with majority concern like the robots: a
 * reservation a lagging read did not see would let a second add of the id through.
 */
public final class MongoRobotIds implements RobotIds {

    private final MongoCollection<Document> entries;

    public MongoRobotIds(StandbyDatabase database) {
        this.entries = StandbyDatabase.safe(database.database().getCollection(RobotIdRules.COLLECTION));
    }

    @Override
    public String newIncarnation() {
        return new ObjectId().toHexString();
    }

    @Override
    public boolean reserve(String id, String incarnation) {
        return MongoRobotStore.unlessDuplicate(() -> entries.updateOne(
                RobotIdRules.reserveFilter(id, incarnation),
                RobotIdRules.reserveUpdate(incarnation),
                new UpdateOptions().upsert(true)));
    }

    @Override
    public Optional<Entry> get(String id) {
        return Optional.ofNullable(entries.find(Filters.eq(RobotIdRules.ID, id)).first())
                .map(doc -> {
                    Entry entry = RobotIdRules.parse(doc);
                    if (entry == null) {
                        throw new IllegalStateException("robot id '" + id + "' has a malformed entry in "
                                + RobotIdRules.COLLECTION + ": " + doc.toJson());
                    }
                    return entry;
                });
    }

    @Override
    public boolean takeOver(Entry stale, String incarnation) {
        return entries.updateOne(RobotIdRules.takeOverFilter(stale), RobotIdRules.reserveUpdate(incarnation))
                        .getMatchedCount()
                == 1;
    }

    @Override
    public boolean bind(String id, String incarnation) {
        return entries.updateOne(RobotIdRules.bindFilter(id, incarnation), RobotIdRules.bindUpdate())
                        .getMatchedCount()
                == 1;
    }

    @Override
    public void release(Entry entry) {
        entries.deleteOne(RobotIdRules.releaseFilter(entry));
    }
}
