package io.standby.robot.internal;

import static io.standby.robot.model.RobotFields.*;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.WriteModel;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The robot store on MongoDB, through the driver directly: Morphia has no conditional bulk update, and decoding must
 * skip a malformed robot instead of failing the whole read. Every filter and update is {@link RobotRules}'s (or the
 * token's and the write's own), the documents the simulation evaluates too.
 *
 * <p>Every read goes to the primary with read concern {@code majority}, and every write waits for a majority, whatever
 * the connection string asks for: a read from a lagging secondary could show a robot as not yet fenced or a write as
 * landed when it may still be rolled back.
 */
public final class MongoRobotStore implements RobotStore, RobotDocuments {

    private static final Bson WATCHED = Projections.include(RobotRules.WATCHED);

    private final MongoCollection<Document> robots;
    private final SlotTable slots;

    public MongoRobotStore(StandbyDatabase database) {
        this(database.database(), new SlotTable(database));
    }

    /** With the slots whose owners a hand-over tells: a test passes a table over a slot store that fails. */
    public MongoRobotStore(MongoDatabase database, SlotTable slots) {
        this.robots = StandbyDatabase.safe(database.getCollection(COLLECTION));
        this.slots = slots;
    }

    @Override
    public void ensureIndexes() {
        robots.createIndex(Indexes.ascending(SLOT, EPOCH), new IndexOptions().name("slotId_epoch"));
    }

    @Override
    public long fence(String slotId, long epoch, Collection<String> onlyIds) {
        return robots.updateMany(RobotRules.fenceFilter(slotId, epoch, onlyIds), RobotRules.fenceUpdate(epoch))
                .getModifiedCount();
    }

    @Override
    public long fenceAndTake(String slotId, long epoch, String node) {
        return robots.updateMany(RobotRules.fenceTakeFilter(slotId, epoch), RobotRules.fenceTakeUpdate(epoch, node))
                .getModifiedCount();
    }

    @Override
    public long take(String slotId, long epoch, Collection<String> ids, String node) {
        return robots.updateMany(RobotRules.takeFilter(slotId, epoch, ids, node), RobotRules.takeUpdate(node))
                .getMatchedCount();
    }

    @Override
    public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
        return decode(robots.find(RobotRules.loadFilter(slotId, epoch, onlyIds)).batchSize(10_000));
    }

    @Override
    public List<RobotView> watch(Collection<String> slotIds) {
        return decode(
                robots.find(RobotRules.watchFilter(slotIds)).projection(WATCHED).batchSize(100_000));
    }

    private static List<RobotView> decode(Iterable<Document> docs) {
        List<RobotView> records = new ArrayList<>();
        for (Document doc : docs) {
            RobotView record = RobotCodec.parse(doc);
            if (record != null) {
                records.add(record);
            }
        }
        return records;
    }

    @Override
    public boolean handOver(RobotRules.HandOver handOver) {
        if (robots.updateOne(handOver.filter(), handOver.update()).getMatchedCount() != 1) {
            return false;
        }
        slots.tellOwner(handOver.toSlot());
        return true;
    }

    @Override
    public boolean delete(RobotToken token) {
        return robots.deleteOne(RobotRules.deleteFilter(token)).getDeletedCount() == 1;
    }

    @Override
    public int write(List<RobotWrite> writes) {
        List<WriteModel<Document>> models = new ArrayList<>(writes.size());
        for (RobotWrite write : writes) {
            models.add(new UpdateOneModel<>(write.filter(), write.update()));
        }
        try {
            return robots.bulkWrite(models, new BulkWriteOptions().ordered(false))
                    .getMatchedCount();
        } catch (MongoBulkWriteException e) {
            Map<Integer, String> refused = new HashMap<>();
            e.getWriteErrors().forEach(error -> refused.put(error.getIndex(), error.getMessage()));
            throw new BulkFailure(refused, e.getWriteConcernError() != null, e.getMessage());
        } catch (RuntimeException e) {
            if (isTransient(e)) {
                throw e;
            }
            throw new IllegalArgumentException(e.toString(), e);
        }
    }

    /** Errors worth retrying the same write for: the database was unreachable, slow or electing. */
    static boolean isTransient(RuntimeException e) {
        return e instanceof MongoSocketException
                || e instanceof MongoTimeoutException
                || e instanceof MongoOperationTimeoutException
                || e instanceof MongoNotPrimaryException
                || e instanceof MongoNodeIsRecoveringException
                || e instanceof MongoInterruptedException
                || (e instanceof MongoException m
                        && (m.hasErrorLabel("RetryableWriteError") || m.hasErrorLabel("TransientTransactionError")));
    }

    @Override
    public Map<String, Stored> stored(Collection<String> ids) {
        Map<String, Stored> stored = new HashMap<>();
        Bson fields = Projections.include(INCARNATION, SLOT, EPOCH, FENCES, SEQ, STATUS_SEQ);
        for (Document doc : robots.find(RobotRules.storedFilter(ids)).projection(fields)) {
            String id = String.valueOf(doc.get(ID));
            stored.put(
                    id,
                    new Stored(
                            new RobotToken(
                                    id,
                                    doc.getString(INCARNATION),
                                    doc.getString(SLOT),
                                    number(doc.get(EPOCH)),
                                    number(doc.get(FENCES))),
                            number(doc.get(SEQ)),
                            number(doc.get(STATUS_SEQ))));
        }
        return stored;
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : -1;
    }

    @Override
    public List<Document> find(Bson filter, List<String> exclude, int limit) {
        FindIterable<Document> found =
                robots.find(filter).sort(Indexes.ascending(ID)).limit(limit);
        if (!exclude.isEmpty()) {
            found = found.projection(Projections.exclude(exclude));
        }
        return found.into(new ArrayList<>());
    }

    @Override
    public boolean insert(Document robot) {
        return unlessDuplicate(() -> robots.insertOne(robot));
    }

    /** Runs a write that creates a document: true, or false if a document with its {@code _id} is there already. */
    static boolean unlessDuplicate(Runnable write) {
        try {
            write.run();
            return true;
        } catch (MongoWriteException e) {
            if (e.getError().getCategory() == ErrorCategory.DUPLICATE_KEY) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public long update(RobotRules.Change change) {
        return robots.updateOne(change.filter(), change.update()).getMatchedCount();
    }

    @Override
    public long revoke(String slotId, long epoch) {
        return robots.updateMany(RobotRules.revokeFilter(slotId, epoch), RobotRules.revokeUpdate(epoch))
                .getMatchedCount();
    }

    @Override
    public boolean deleteIdle(RobotView robot) {
        return robots.deleteOne(RobotRules.idleDeleteFilter(robot)).getDeletedCount() == 1;
    }

    @Override
    public boolean deleteAdding(String id, String incarnation) {
        return robots.deleteOne(RobotRules.adding(id, incarnation)).getDeletedCount() == 1;
    }

    @Override
    public List<Document> countBySlotAndState() {
        return robots.aggregate(List.of(Aggregates.group(
                        new Document("slot", "$" + SLOT).append("state", "$" + STATE), Accumulators.sum("n", 1))))
                .into(new ArrayList<>());
    }
}
