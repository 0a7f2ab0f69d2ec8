package io.standby.robot.internal;

import io.standby.robot.admin.Desired;
import io.standby.robot.admin.RobotState;
import io.standby.robot.admin.RobotView;
import io.standby.robot.internal.SimDatabase.RobotDoc;
import org.bson.Document;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The robot store's operations on the simulated database, with {@code MongoRobotStore}'s conditions. A
 * run's writes apply exactly when {@link RobotWrite#appliesTo} says so: the contract suite checks that
 * predicate against the filter on real servers, and this drives the runtime's real batching and
 * read-back ({@link WriteBatch}) over it.
 */
final class SimRobotStore implements RobotStore {

    private final SimDatabase db;
    private final SimSlotStore slots;

    SimRobotStore(SimDatabase db) {
        this.db = db;
        this.slots = new SimSlotStore(db);
    }

    @Override
    public void ensureIndexes() {
    }

    @Override
    public long fence(String slotId, long epoch, Collection<String> onlyIds) {
        return db.write("fence " + slotId + " to " + epoch, () -> {
            long fenced = 0;
            for (RobotDoc doc : db.robots.values()) {
                if (doc.slotId.equals(slotId) && doc.epoch < epoch && (onlyIds == null || onlyIds.contains(doc.id))) {
                    doc.epoch = epoch;
                    doc.node = null;
                    doc.fences++;
                    doc.seq = 0;
                    doc.statusSeq = 0;
                    db.touchRobot(doc.id);
                    fenced++;
                }
            }
            return fenced;
        });
    }

    @Override
    public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
        return db.read("load " + slotId, () -> {
            List<RobotView> views = new ArrayList<>();
            for (RobotDoc doc : db.committedRobots.values()) {
                if (doc.slotId.equals(slotId) && doc.epoch == epoch && (onlyIds == null || onlyIds.contains(doc.id))) {
                    views.add(view(doc, true));
                }
            }
            return views;
        });
    }

    @Override
    public long take(String slotId, long epoch, Collection<String> ids, String node) {
        return db.write("take " + ids + " in " + slotId + "@" + epoch + " for " + node, () -> {
            long taken = 0;
            for (String id : ids) {
                RobotDoc doc = db.robots.get(id);
                if (doc != null && doc.slotId.equals(slotId) && doc.epoch == epoch
                        && (doc.node == null || doc.node.equals(node)) && doc.target == null
                        && doc.desired.equals("running") && !doc.state.equals("FAILED")) {
                    doc.node = node;
                    doc.state = "STARTING";
                    doc.fences++;
                    doc.seq = 0;
                    doc.statusSeq = 0;
                    db.touchRobot(id);
                    taken++;
                }
            }
            return taken;
        });
    }

    @Override
    public List<RobotView> watch(Collection<String> slotIds) {
        return db.read("watch " + slotIds, () -> {
            List<RobotView> views = new ArrayList<>();
            for (RobotDoc doc : db.committedRobots.values()) {
                if (slotIds.contains(doc.slotId)) {
                    views.add(view(doc, false));
                }
            }
            return views;
        });
    }

    static RobotView view(RobotDoc doc, boolean whole) {
        Document context = whole && doc.count != null ? new Document("count", doc.count) : new Document();
        Document config = whole ? new Document("intervalMs", doc.intervalMs) : new Document();
        return new RobotView(doc.id, doc.incarnation, "sim", doc.slotId, whole ? doc.priority : 0, 1, config,
                Desired.of(doc.desired), RobotState.valueOf(doc.state), doc.node, context, doc.epoch, doc.fences,
                doc.restarts, null, doc.target, null);
    }

    private static boolean holds(RobotDoc doc, RobotToken token) {
        return doc != null && stored(doc).token().equals(token);
    }

    @Override
    public boolean handOver(RobotToken token, String toSlot) {
        return db.write("hand over " + token + " to " + toSlot, () -> {
            RobotDoc doc = db.robots.get(token.robotId());
            if (!holds(doc, token)) {
                return false;
            }
            doc.slotId = toSlot;
            doc.epoch = 0;
            doc.node = null;
            doc.state = "PENDING";
            doc.target = null;
            db.touchRobot(doc.id);
            return true;
        });
    }

    @Override
    public void touchSlot(String slotId) {
        slots.touch(slotId);
    }

    @Override
    public boolean delete(RobotToken token) {
        return db.write("delete " + token, () -> {
            RobotDoc doc = db.robots.get(token.robotId());
            if (!holds(doc, token) || !doc.desired.equals("removed")) {
                return false;
            }
            db.robots.remove(doc.id);
            db.touchRobot(doc.id);
            return true;
        });
    }

    @Override
    public int write(List<RobotWrite> writes) {
        try {
            return db.write("bulk of " + writes.size(), () -> {
                int matched = 0;
                for (RobotWrite write : writes) {
                    RobotDoc doc = db.robots.get(write.token().robotId());
                    if (doc != null && write.appliesTo(stored(doc))) {
                        apply(doc, write);
                        db.touchRobot(doc.id);
                        matched++;
                    }
                }
                return matched;
            });
        } catch (SimDatabase.Unconfirmed e) {
            throw new BulkFailure(Map.of(), true, e.getMessage());
        }
    }

    private static void apply(RobotDoc doc, RobotWrite write) {
        if (write.kind() == RobotWrite.Kind.CHECKPOINT) {
            doc.count = ((Number) ((Document) write.fields().get(RobotFields.CONTEXT)).get("count")).longValue();
            doc.seq = write.seq();
            return;
        }
        Document fields = write.fields();
        if (fields.containsKey(RobotFields.STATE)) {
            doc.state = fields.getString(RobotFields.STATE);
        }
        if (fields.containsKey(RobotFields.NODE)) {
            doc.node = fields.getString(RobotFields.NODE);
        }
        if (fields.containsKey(RobotFields.DESIRED)) {
            doc.desired = fields.getString(RobotFields.DESIRED);
        }
        if (fields.get(RobotFields.RESTARTS) instanceof Number restarts) {
            doc.restarts = restarts.intValue();
        }
        doc.statusSeq = write.seq();
    }

    private static Stored stored(RobotDoc doc) {
        return new Stored(new RobotToken(doc.id, doc.incarnation, doc.slotId, doc.epoch, doc.fences), doc.seq, doc.statusSeq);
    }

    @Override
    public Map<String, Stored> stored(Collection<String> ids) {
        return db.read("stored " + ids, () -> {
            Map<String, Stored> stored = new TreeMap<>();
            for (String id : ids) {
                RobotDoc doc = db.committedRobots.get(id);
                if (doc != null) {
                    stored.put(id, stored(doc));
                }
            }
            return stored;
        });
    }
}
