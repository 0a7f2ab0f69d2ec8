package io.standby.robot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import io.standby.robot.RobotState;
import io.standby.robot.RobotView;
import org.bson.Document;
import org.bson.conversions.Bson;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.standby.robot.internal.RobotFields.*;

/**
 * The robot runtime's database operations. Every write by a runner is conditional on its fencing token
 * {@code (slotId, epoch)}. These go through the driver directly: Morphia has no conditional bulk update,
 * and decoding must skip a malformed robot instead of failing the whole read.
 */
public final class RobotStore {

    /** The fields a node watches each poll: enough to notice additions, removals, moves and operator changes. */
    private static final Bson WATCHED = Projections.include(SLOT, EPOCH, DESIRED, STATE, NODE, TARGET);

    private final MongoCollection<Document> robots;

    public RobotStore(MongoDatabase database) {
        this.robots = database.getCollection(COLLECTION);
    }

    /** Creates the index the runtime's queries use; idempotent. */
    public void ensureIndexes() {
        robots.createIndex(Indexes.ascending(SLOT, EPOCH), new IndexOptions().name("slotId_epoch"));
    }

    /** The fencing token filter: this robot, still in this slot, still at this epoch. */
    static Bson token(String id, String slotId, long epoch) {
        return Filters.and(Filters.eq(ID, id), Filters.eq(SLOT, slotId), Filters.eq(EPOCH, epoch));
    }

    /**
     * Raises the fencing epoch of the slot's robots (all of them, or those listed) to {@code epoch} and
     * clears their runner. After this, every write of an earlier runner of these robots matches nothing.
     * Returns how many were raised.
     */
    public long fence(String slotId, long epoch, Collection<String> onlyIds) {
        Bson filter = Filters.and(Filters.eq(SLOT, slotId), Filters.lt(EPOCH, epoch));
        if (onlyIds != null) {
            filter = Filters.and(filter, Filters.in(ID, onlyIds));
        }
        return robots.updateMany(filter, Updates.combine(
                Updates.set(EPOCH, epoch), Updates.set(NODE, null), Updates.currentDate(UPDATED))).getModifiedCount();
    }

    /**
     * Marks the listed robots as run by {@code node} (state STARTING), if they are fenced at this epoch,
     * runnable (wanted running, not failed, not moving) and run by nobody else. A robot is started
     * only after this: an operator's direct move, which needs no runner, can then never slip in between.
     */
    public void take(String slotId, long epoch, Collection<String> ids, String node) {
        robots.updateMany(Filters.and(
                        Filters.in(ID, ids),
                        Filters.eq(SLOT, slotId),
                        Filters.eq(EPOCH, epoch),
                        Filters.in(NODE, Arrays.asList(null, node)),
                        Filters.eq(TARGET, null),
                        Filters.ne(DESIRED, "stopped"),
                        Filters.ne(STATE, RobotState.FAILED.name())),
                Updates.combine(Updates.set(NODE, node), Updates.set(STATE, RobotState.STARTING.name()),
                        Updates.currentDate(UPDATED)));
    }

    /** Whole documents (with context) of the slot's robots fenced at {@code epoch}, or only those listed. */
    public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
        Bson filter = Filters.and(Filters.eq(SLOT, slotId), Filters.eq(EPOCH, epoch));
        if (onlyIds != null) {
            filter = Filters.and(filter, Filters.in(ID, onlyIds));
        }
        return decode(robots.find(filter).batchSize(10_000));
    }

    /** The watched fields of every robot in these slots: one query, however many robots. */
    public List<RobotView> watch(Collection<String> slotIds) {
        return decode(robots.find(Filters.in(SLOT, slotIds)).projection(WATCHED).batchSize(100_000));
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

    /**
     * Moves a robot whose run has ended to the slot it should go to: still fenced by the mover's token,
     * the context travels along, and the epoch starts over for the new slot, whose owner raises it when
     * it takes the robot.
     */
    public boolean handOver(String id, String fromSlot, long epoch, String toSlot) {
        return robots.updateOne(token(id, fromSlot, epoch), Updates.combine(
                Updates.set(SLOT, toSlot),
                Updates.set(EPOCH, 0L),
                Updates.set(NODE, null),
                Updates.set(STATE, RobotState.PENDING.name()),
                Updates.unset(TARGET),
                Updates.currentDate(UPDATED))).getMatchedCount() == 1;
    }

    /** Sends writes in one unordered bulk; returns how many matched their filter. */
    public int write(List<WriteModel<Document>> writes) {
        return robots.bulkWrite(writes, new BulkWriteOptions().ordered(false)).getMatchedCount();
    }

    /** The current fencing token of each listed robot that still exists: {@code slotId + "@" + epoch}. */
    public Map<String, String> tokens(Collection<String> ids) {
        Map<String, String> tokens = new HashMap<>();
        for (Document doc : robots.find(Filters.in(ID, ids)).projection(Projections.include(SLOT, EPOCH))) {
            Object epoch = doc.get(EPOCH);
            tokens.put(String.valueOf(doc.get(ID)), doc.get(SLOT) + "@" + (epoch instanceof Number n ? n.longValue() : epoch));
        }
        return tokens;
    }
}
