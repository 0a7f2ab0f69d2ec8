package io.standby.robot.internal;

import io.standby.robot.internal.SimDatabase.RobotDoc;
import io.standby.slot.SlotView;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An operator at the command line, issuing {@code RobotTable}'s commands with the same conditions:
 * each one reads (majority), then writes one compare-and-set, and each can be lost, late or duplicated
 * like any other request. Removal is the handshake (a running robot is only marked), and a forced
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
        RobotDoc doc = newRobot(id, randomSlot());
        db.robots.put(id, doc);
        db.touchRobot(id);
        db.commit();
    }

    private RobotDoc newRobot(String id, String slotId) {
        RobotDoc doc = new RobotDoc();
        doc.id = id;
        doc.incarnation = "i" + nextIncarnation++;
        doc.slotId = slotId;
        doc.priority = sim.random.nextInt(3);
        doc.intervalMs = 20 + sim.random.nextInt(180);
        return doc;
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
            List<String> ids = new ArrayList<>(db.committedRobots.keySet());
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

    private RobotDoc read(String id) {
        return db.read("robot " + id, () -> {
            RobotDoc doc = db.committedRobots.get(id);
            return doc == null ? null : doc.copy();
        });
    }

    void add(String id, String slotId) {
        if (read(id) != null) {
            return;
        }
        RobotDoc doc = newRobot(id, slotId);
        sim.note("operator: add " + id + "/" + doc.incarnation + " to " + slotId);
        if (db.writeOnce("add " + id, () -> {
            if (db.robots.containsKey(id)) {
                return false;
            }
            db.robots.put(id, doc.copy());
            db.touchRobot(id);
            return true;
        })) {
            slots.touch(slotId);
        }
    }

    void remove(String id) {
        RobotDoc seen = read(id);
        if (seen == null) {
            return;
        }
        sim.note("operator: rm " + id + "/" + seen.incarnation + (seen.node == null ? " (idle)" : " (on " + seen.node + ")"));
        boolean done = db.write("rm " + id, () -> {
            RobotDoc doc = db.robots.get(id);
            if (doc == null || !Objects.equals(doc.incarnation, seen.incarnation)) {
                return false;
            }
            if (seen.node == null) {
                if (doc.node != null) {
                    return false;
                }
                db.robots.remove(id);
            } else {
                if (doc.node == null) {
                    return false;
                }
                doc.desired = "removed";
            }
            db.touchRobot(id);
            return true;
        });
        if (done) {
            removedIds.add(id);
            if (seen.node != null) {
                slots.touch(seen.slotId);
            }
        }
    }

    void move(String id, String to) {
        RobotDoc seen = read(id);
        if (seen == null || seen.desired.equals("removed")) {
            return;
        }
        sim.note("operator: move " + id + " from " + seen.slotId + " to " + to);
        boolean moved = db.write("move " + id, () -> {
            RobotDoc doc = db.robots.get(id);
            if (doc == null || !Objects.equals(doc.incarnation, seen.incarnation) || !doc.slotId.equals(seen.slotId)) {
                return false;
            }
            if (seen.slotId.equals(to)) {
                doc.target = null;
            } else if (seen.node == null) {
                if (doc.epoch != seen.epoch || doc.node != null) {
                    return false;
                }
                doc.slotId = to;
                doc.epoch = 0;
                doc.target = null;
            } else {
                if (doc.node == null) {
                    return false;
                }
                doc.target = to;
            }
            db.touchRobot(id);
            return true;
        });
        if (moved) {
            slots.touch(seen.node == null ? to : seen.slotId);
        }
    }

    void stop(String id) {
        RobotDoc seen = read(id);
        if (seen == null || seen.desired.equals("removed")) {
            return;
        }
        sim.note("operator: stop " + id);
        boolean stopped = db.write("stop " + id, () -> {
            RobotDoc doc = db.robots.get(id);
            if (doc == null || doc.desired.equals("removed")) {
                return false;
            }
            doc.desired = "stopped";
            if (doc.node == null) {
                doc.state = "STOPPED";
            }
            db.touchRobot(id);
            return true;
        });
        if (stopped) {
            slots.touch(seen.slotId);
        }
    }

    void start(String id) {
        RobotDoc seen = read(id);
        if (seen == null || seen.desired.equals("removed")) {
            return;
        }
        sim.note("operator: start " + id);
        boolean started = db.write("start " + id, () -> {
            RobotDoc doc = db.robots.get(id);
            if (doc == null || doc.desired.equals("removed")) {
                return false;
            }
            doc.desired = "running";
            db.touchRobot(id);
            return true;
        });
        if (started) {
            slots.touch(seen.slotId);
        }
    }

    /** {@code standby slots release}: revoke the slot, then fence its robots at the new epoch. */
    void forceRelease(String slotId) {
        SlotView seen = slots.read(slotId).orElse(null);
        if (seen == null || seen.owner() == null) {
            return;
        }
        sim.note("operator: slots release " + slotId + "@" + seen.epoch());
        if (slots.revoke(seen)) {
            checker.revoked(slotId);
            long epoch = seen.epoch() + 1;
            db.write("fence robots of " + slotId + " to " + epoch, () -> {
                for (RobotDoc doc : db.robots.values()) {
                    if (doc.slotId.equals(slotId) && doc.epoch < epoch) {
                        doc.epoch = epoch;
                        db.touchRobot(doc.id);
                    }
                }
                return null;
            });
        }
    }
}
