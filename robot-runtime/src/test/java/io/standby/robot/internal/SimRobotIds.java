package io.standby.robot.internal;

import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.Document;

/**
 * The id registry on the simulated database, with {@link RobotIdRules}'s own filter and update documents, evaluated by
 * {@link BsonEval} as they are sent ({@code $$NOW} and {@code $currentDate} at the simulated server's clock).
 */
final class SimRobotIds implements RobotIds {

    private final SimDatabase db;

    SimRobotIds(SimDatabase db) {
        this.db = db;
    }

    /** Numbered, where the Mongo registry mints an ObjectId, so that a run replays. */
    @Override
    public String newIncarnation() {
        return "i" + db.incarnations++;
    }

    /** The upsert: a retry of itself matches, any other entry of the id refuses the insert as a duplicate key. */
    @Override
    public boolean reserve(String id, String incarnation) {
        return db.write("reserve " + id + "/" + incarnation, () -> {
            if (db.robotIds
                            .update(
                                    RobotIdRules.reserveFilter(id, incarnation),
                                    RobotIdRules.reserveUpdate(incarnation),
                                    false)
                            .matched()
                    == 1) {
                return true;
            }
            return db.robotIds.insert(BsonEval.apply(
                    BsonEval.bson(RobotIdRules.reserveUpdate(incarnation)),
                    new BsonDocument("_id", new org.bson.BsonString(id)),
                    db.serverNowMs()));
        });
    }

    @Override
    public Optional<Entry> get(String id) {
        return db.read(
                "find robotIds " + id,
                () -> db.robotIds.find(new Document(RobotIdRules.ID, id)).stream()
                        .findFirst()
                        .map(doc -> RobotIdRules.parse(SimRobotStore.document(doc))));
    }

    @Override
    public boolean takeOver(Entry stale, String incarnation) {
        return db.write(
                "take over " + stale,
                () -> db.robotIds
                                .update(
                                        RobotIdRules.takeOverFilter(stale),
                                        RobotIdRules.reserveUpdate(incarnation),
                                        false)
                                .matched()
                        == 1);
    }

    @Override
    public boolean bind(String id, String incarnation) {
        return db.write(
                "bind " + id + "/" + incarnation,
                () -> db.robotIds
                                .update(RobotIdRules.bindFilter(id, incarnation), RobotIdRules.bindUpdate(), false)
                                .matched()
                        == 1);
    }

    @Override
    public void release(Entry entry) {
        db.write("release " + entry, () -> db.robotIds.deleteOne(RobotIdRules.releaseFilter(entry)));
    }
}
