package io.standby.robot.internal;

import static io.standby.robot.internal.SimDatabase.number;
import static io.standby.robot.internal.SimDatabase.string;
import static io.standby.robot.model.RobotFields.EPOCH;
import static io.standby.robot.model.RobotFields.FENCES;
import static io.standby.robot.model.RobotFields.INCARNATION;
import static io.standby.robot.model.RobotFields.REQUEST;
import static io.standby.robot.model.RobotFields.SEQ;
import static io.standby.robot.model.RobotFields.SLOT;
import static io.standby.robot.model.RobotFields.STATUS_SEQ;

import com.mongodb.MongoClientSettings;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotTable;
import io.standby.slot.internal.ApiAccess;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.Document;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.DocumentCodec;
import org.bson.conversions.Bson;

/**
 * The robot store's operations on the simulated database, with {@code MongoRobotStore}'s own filter and update
 * documents ({@link RobotRules}, {@link RobotToken#filter()}, {@link RobotWrite#filter()} and
 * {@link RobotWrite#update()}), evaluated by {@link BsonEval} as they are sent; reads decode with {@link RobotCodec},
 * as the Mongo store does. {@link RobotWrite#appliesTo} is not used here: what a write does is what its filter says,
 * and the contract suite checks that predicate against real servers.
 */
final class SimRobotStore implements RobotStore, RobotDocuments {

    private static final DocumentCodec CODEC = new DocumentCodec(MongoClientSettings.getDefaultCodecRegistry());

    private final SimDatabase db;
    private final SlotTable slots;

    SimRobotStore(SimDatabase db) {
        this.db = db;
        this.slots = ApiAccess.slotTable(new SimSlotStore(db));
    }

    @Override
    public void ensureIndexes() {}

    @Override
    public long fence(String slotId, long epoch, Collection<String> onlyIds) {
        return db.write(
                "fence " + slotId + " to " + epoch,
                () -> db.robots
                        .update(RobotRules.fenceFilter(slotId, epoch, onlyIds), RobotRules.fenceUpdate(epoch), true)
                        .modified());
    }

    @Override
    public long fenceAndTake(String slotId, long epoch, String node) {
        return db.write(
                "fence and take " + slotId + " to " + epoch + " for " + node,
                () -> db.robots
                        .update(
                                RobotRules.fenceTakeFilter(slotId, epoch),
                                RobotRules.fenceTakeUpdate(epoch, node),
                                true)
                        .modified());
    }

    @Override
    public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
        return db.read(
                "load " + slotId, () -> decode(db.robots.find(RobotRules.loadFilter(slotId, epoch, onlyIds)), false));
    }

    @Override
    public long take(String slotId, long epoch, Collection<String> ids, String node) {
        return db.write(
                "take " + ids + " in " + slotId + "@" + epoch + " for " + node,
                () -> db.robots
                        .update(RobotRules.takeFilter(slotId, epoch, ids, node), RobotRules.takeUpdate(node), true)
                        .matched());
    }

    @Override
    public List<RobotView> watch(Collection<String> slotIds) {
        return db.read("watch " + slotIds, () -> decode(db.robots.find(RobotRules.watchFilter(slotIds)), true));
    }

    /** As {@code MongoRobotStore} decodes them; a watch reads the watched fields only, as its projection does. */
    private static List<RobotView> decode(List<BsonDocument> docs, boolean watched) {
        List<RobotView> views = new ArrayList<>();
        for (BsonDocument doc : docs) {
            RobotView view = RobotCodec.parse(document(watched ? project(doc) : doc));
            if (view != null) {
                views.add(view);
            }
        }
        return views;
    }

    private static BsonDocument project(BsonDocument doc) {
        BsonDocument projected = new BsonDocument("_id", doc.get("_id"));
        for (String field : RobotRules.WATCHED) {
            if (doc.containsKey(field)) {
                projected.put(field, doc.get(field));
            }
        }
        return projected;
    }

    static Document document(BsonDocument doc) {
        return CODEC.decode(
                new BsonDocumentReader(doc), DecoderContext.builder().build());
    }

    /** As {@code MongoRobotStore} hands over: the update, then the word to the new slot's owner. */
    @Override
    public boolean handOver(RobotRules.HandOver handOver) {
        RobotToken runner = handOver.runner();
        boolean done = db.write(
                "hand over "
                        + (runner != null
                                ? runner
                                : "idle " + BsonEval.bson(handOver.filter()).toJson()) + " to " + handOver.toSlot(),
                () -> {
                    boolean matched = db.robots
                                    .update(handOver.filter(), handOver.update(), false)
                                    .matched()
                            == 1;
                    if (matched && runner != null && db.checker != null) {
                        db.checker.accepted(runner);
                    }
                    return matched;
                });
        if (done) {
            slots.tellOwner(handOver.toSlot());
        }
        return done;
    }

    @Override
    public boolean delete(RobotToken token) {
        return db.write("delete " + token, () -> {
            boolean done = db.robots.deleteOne(RobotRules.deleteFilter(token));
            if (done && db.checker != null) {
                db.checker.accepted(token);
            }
            return done;
        });
    }

    /** One unordered bulk of {@code updateOne}s, each with the write's own filter and update. */
    @Override
    public int write(List<RobotWrite> writes) {
        try {
            return db.write("bulk of " + writes.size(), () -> {
                int matched = 0;
                for (RobotWrite write : writes) {
                    long one = db.robots
                            .update(write.filter(), write.update(), false)
                            .matched();
                    if (one > 0 && db.checker != null) {
                        db.checker.accepted(write.token());
                    }
                    matched += (int) one;
                }
                return matched;
            });
        } catch (SimDatabase.Unconfirmed e) {
            throw new BulkFailure(Map.of(), true, e.getMessage());
        }
    }

    /** As {@code MongoRobotStore} reads it: a missing number is -1. */
    static Stored stored(BsonDocument doc) {
        return new Stored(
                new RobotToken(
                        SimDatabase.id(doc),
                        string(doc, INCARNATION),
                        string(doc, SLOT),
                        orMinusOne(doc, EPOCH),
                        orMinusOne(doc, FENCES)),
                orMinusOne(doc, SEQ),
                orMinusOne(doc, STATUS_SEQ));
    }

    private static long orMinusOne(BsonDocument doc, String field) {
        Long value = number(doc, field);
        return value == null ? -1 : value;
    }

    @Override
    public Map<String, Stored> stored(Collection<String> ids) {
        return db.read("stored " + ids, () -> {
            Map<String, Stored> stored = new TreeMap<>();
            for (BsonDocument doc : db.robots.find(RobotRules.storedFilter(ids))) {
                stored.put(SimDatabase.id(doc), stored(doc));
            }
            return stored;
        });
    }

    // The operator's commands (RobotTable), with its own filters and updates.

    @Override
    public List<Document> find(Bson filter, List<String> exclude, int limit) {
        return db.read("find " + BsonEval.bson(filter).toJson(), () -> {
            List<Document> found = new ArrayList<>();
            for (BsonDocument doc : db.robots.find(filter)) {
                if (limit > 0 && found.size() == limit) {
                    break;
                }
                Document copy = document(doc);
                exclude.forEach(copy::remove);
                found.add(copy);
            }
            return found;
        });
    }

    /**
     * An insert nobody retries, its request stamped with the server's clock. Its incarnation is the one its add chose
     * ({@link SimRobotIds#newIncarnation}, numbered so that a run replays).
     */
    @Override
    public boolean insert(Document robot) {
        BsonDocument doc = BsonEval.bson(robot);
        doc.put(
                REQUEST,
                BsonEval.bson(
                        new Document("slot", robot.get(SLOT)).append("at", new java.util.Date(db.serverNowMs()))));
        return db.writeOnce(
                "insert " + robot.get("_id") + "/" + doc.getString(INCARNATION).getValue(),
                () -> db.robots.insert(doc));
    }

    @Override
    public long update(RobotRules.Change change) {
        return db.write(
                "update " + BsonEval.bson(change.filter()).toJson(),
                () -> db.robots.update(change.filter(), change.update(), false).matched());
    }

    @Override
    public long revoke(String slotId, long epoch) {
        Bson filter = RobotRules.revokeFilter(slotId, epoch);
        return db.write(
                "update " + BsonEval.bson(filter).toJson(),
                () -> db.robots
                        .update(filter, RobotRules.revokeUpdate(epoch), true)
                        .matched());
    }

    @Override
    public boolean deleteIdle(RobotView robot) {
        Bson filter = RobotRules.idleDeleteFilter(robot);
        return db.write("delete " + BsonEval.bson(filter).toJson(), () -> db.robots.deleteOne(filter));
    }

    @Override
    public boolean deleteAdding(String id, String incarnation) {
        Bson filter = RobotRules.adding(id, incarnation);
        return db.write("delete " + BsonEval.bson(filter).toJson(), () -> db.robots.deleteOne(filter));
    }

    @Override
    public List<Document> countBySlotAndState() {
        return db.read("count robots", () -> {
            Map<String, Integer> counts = new TreeMap<>();
            for (BsonDocument doc : db.robots.find(new Document())) {
                counts.merge(string(doc, SLOT) + "\n" + string(doc, RobotFields.STATE), 1, Integer::sum);
            }
            List<Document> groups = new ArrayList<>();
            counts.forEach((key, n) -> {
                String[] parts = key.split("\n", -1);
                groups.add(
                        new Document("_id", new Document("slot", parts[0]).append("state", parts[1])).append("n", n));
            });
            return groups;
        });
    }
}
