package io.standby.robot.internal;

import io.standby.slot.SlotView;
import org.bson.BsonDocument;
import org.bson.Document;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;

import static io.standby.robot.internal.RobotFields.DESIRED;
import static io.standby.robot.internal.RobotFields.EPOCH;
import static io.standby.robot.internal.RobotFields.INCARNATION;
import static io.standby.robot.internal.RobotFields.NODE;
import static io.standby.robot.internal.RobotFields.REQUEST;
import static io.standby.robot.internal.RobotFields.SLOT;
import static io.standby.robot.internal.RobotFields.STATE;
import static io.standby.robot.internal.RobotFields.TARGET;
import static io.standby.robot.internal.SimDatabase.number;
import static io.standby.robot.internal.SimDatabase.string;

/**
 * An operator at the command line, issuing {@code RobotTable}'s commands with the same conditions:
 * each one reads (majority), then writes one compare-and-set, and each can be lost, late or duplicated
 * like any other request. Unlike the stores' rules, these conditions are still a copy of
 * {@code RobotTable}'s, written here by hand; the robots it adds have {@code RobotCodec.newRobot}'s shape. Removal is the handshake (a running robot is only marked), and a forced
 * release fences the slot's robots at the new epoch once the slot is revoked.
 */
final class SimOperator {

    private final Sim sim;
    private final SimDatabase db;
    private final SimSlotStore slots;
    private final int slotCount;
    private int nextRobot;
    private int nextIncarnation;
    private final List<String> removedIds = new ArrayList<>();

    private final SimChecker checker;

    SimOperator(Sim sim, SimDatabase db, int slotCount, SimChecker checker) {
        this.sim = sim;
        this.checker = checker;
        this.db = db;
        this.slots = new SimSlotStore(db);
        this.slotCount = slotCount;
    }

    private String randomSlot() {
        return "slot-" + sim.random.nextInt(slotCount);
    }

    /** A robot straight into the database, before any node starts. */
    void seed(String id) {
        db.robots.insert(newRobot(id, randomSlot()));
        db.commit();
    }

    /** The document {@code robot add} writes, with an incarnation and a request time the seed decides. */
    private BsonDocument newRobot(String id, String slotId) {
        int priority = sim.random.nextInt(3);
        long intervalMs = 20 + sim.random.nextInt(180);
        return BsonEval.bson(RobotCodec.newRobot(id, "sim", slotId, priority, 1, new Document("intervalMs", intervalMs))
                .append(INCARNATION, "i" + nextIncarnation++)
                .append(REQUEST, new Document("slot", slotId).append("at", new Date(db.serverNowMs()))));
    }

    /** {@code doc} with {@code $set} of these fields, on the primary. */
    private void set(BsonDocument doc, Document fields) {
        db.robots.put(BsonEval.apply(new Document("$set", fields), doc, db.serverNowMs()));
    }

    String newId() {
        return "r" + nextRobot++;
    }

    private int maxRobots = Integer.MAX_VALUE;

    void maxRobots(int max) {
        this.maxRobots = max;
    }

    /** One random command; a command that fails (a timeout, say) is the operator's problem, not the protocol's. */
    void act() {
        try {
            double r = sim.random.nextDouble();
            List<String> ids = new ArrayList<>(db.robots.committed.keySet());
            String id = ids.isEmpty() ? null : ids.get(sim.random.nextInt(ids.size()));
            if ((r < 0.20 || id == null) && ids.size() < maxRobots) {
                // Often an id removed a moment ago: rm followed by add is what hole 3 was about.
                String fresh = !removedIds.isEmpty() && sim.chance(0.7) ? removedIds.remove(removedIds.size() - 1) : newId();
                add(fresh, randomSlot());
            } else if (id == null) {
                return;
            } else if (r < 0.40) {
                remove(id);
            } else if (r < 0.65) {
                move(id, randomSlot());
            } else if (r < 0.78) {
                stop(id);
            } else if (r < 0.95) {
                start(id);
            } else {
                forceRelease(randomSlot());
            }
        } catch (SimDatabase.Unavailable | SimDatabase.Unconfirmed e) {
            sim.note("operator: " + e.getMessage());
        }
    }

    private BsonDocument read(String id) {
        return db.read("robot " + id, () -> db.robots.committed.get(id));
    }

    void add(String id, String slotId) {
        if (read(id) != null) {
            return;
        }
        BsonDocument doc = newRobot(id, slotId);
        sim.note("operator: add " + id + "/" + string(doc, INCARNATION) + " to " + slotId);
        if (db.writeOnce("add " + id, () -> db.robots.insert(doc))) {
            slots.touch(slotId);
        }
    }

    void remove(String id) {
        BsonDocument seen = read(id);
        if (seen == null) {
            return;
        }
        String seenNode = string(seen, NODE);
        sim.note("operator: rm " + id + "/" + string(seen, INCARNATION) + (seenNode == null ? " (idle)" : " (on " + seenNode + ")"));
        boolean done = db.write("rm " + id, () -> {
            BsonDocument doc = db.robots.primary.get(id);
            if (doc == null || !Objects.equals(string(doc, INCARNATION), string(seen, INCARNATION))) {
                return false;
            }
            if (seenNode == null) {
                if (string(doc, NODE) != null) {
                    return false;
                }
                db.robots.remove(id);
            } else {
                if (string(doc, NODE) == null) {
                    return false;
                }
                set(doc, new Document(DESIRED, "removed"));
            }
            return true;
        });
        if (done) {
            removedIds.add(id);
            if (seenNode != null) {
                slots.touch(string(seen, SLOT));
            }
        }
    }

    private static boolean removed(BsonDocument doc) {
        return "removed".equals(string(doc, DESIRED));
    }

    void move(String id, String to) {
        BsonDocument seen = read(id);
        if (seen == null || removed(seen)) {
            return;
        }
        String from = string(seen, SLOT);
        String seenNode = string(seen, NODE);
        sim.note("operator: move " + id + " from " + from + " to " + to);
        boolean moved = db.write("move " + id, () -> {
            BsonDocument doc = db.robots.primary.get(id);
            if (doc == null || !Objects.equals(string(doc, INCARNATION), string(seen, INCARNATION)) || !string(doc, SLOT).equals(from)) {
                return false;
            }
            if (from.equals(to)) {
                db.robots.put(BsonEval.apply(new Document("$unset", new Document(TARGET, "")), doc, db.serverNowMs()));
            } else if (seenNode == null) {
                if (!Objects.equals(number(doc, EPOCH), number(seen, EPOCH)) || string(doc, NODE) != null) {
                    return false;
                }
                db.robots.put(BsonEval.apply(new Document("$set", new Document(SLOT, to).append(EPOCH, 0L))
                        .append("$unset", new Document(TARGET, "")), doc, db.serverNowMs()));
            } else {
                if (string(doc, NODE) == null) {
                    return false;
                }
                set(doc, new Document(TARGET, to));
            }
            return true;
        });
        if (moved) {
            slots.touch(seenNode == null ? to : from);
        }
    }

    void stop(String id) {
        BsonDocument seen = read(id);
        if (seen == null || removed(seen)) {
            return;
        }
        sim.note("operator: stop " + id);
        boolean stopped = db.write("stop " + id, () -> {
            BsonDocument doc = db.robots.primary.get(id);
            if (doc == null || removed(doc)) {
                return false;
            }
            Document fields = new Document(DESIRED, "stopped");
            if (string(doc, NODE) == null) {
                fields.append(STATE, "STOPPED");
            }
            set(doc, fields);
            return true;
        });
        if (stopped) {
            slots.touch(string(seen, SLOT));
        }
    }

    void start(String id) {
        BsonDocument seen = read(id);
        if (seen == null || removed(seen)) {
            return;
        }
        sim.note("operator: start " + id);
        boolean started = db.write("start " + id, () -> {
            BsonDocument doc = db.robots.primary.get(id);
            if (doc == null || removed(doc)) {
                return false;
            }
            set(doc, new Document(DESIRED, "running"));
            return true;
        });
        if (started) {
            slots.touch(string(seen, SLOT));
        }
    }

    /** {@code standby slots release}: revoke the slot, then fence its robots at the new epoch, as {@code RobotTable} does. */
    void forceRelease(String slotId) {
        SlotView seen = slots.read(slotId).orElse(null);
        if (seen == null || seen.owner() == null) {
            return;
        }
        sim.note("operator: slots release " + slotId + "@" + seen.epoch());
        if (slots.revoke(seen)) {
            checker.revoked(slotId);
            long epoch = seen.epoch() + 1;
            db.write("fence robots of " + slotId + " to " + epoch, () -> db.robots.update(
                    FlatFilter.and(com.mongodb.client.model.Filters.eq(SLOT, slotId), com.mongodb.client.model.Filters.lt(EPOCH, epoch)),
                    new Document("$set", new Document(EPOCH, epoch)).append("$currentDate", new Document(RobotFields.UPDATED, true)), true));
        }
    }
}
