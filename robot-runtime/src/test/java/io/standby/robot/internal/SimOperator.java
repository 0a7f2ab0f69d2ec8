package io.standby.robot.internal;

import static io.standby.robot.model.RobotFields.INCARNATION;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotCodec;
import io.standby.slot.NodeId;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotView;
import io.standby.slot.internal.ApiAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.BooleanSupplier;
import org.bson.Document;

/**
 * An operator at the command line: the real {@link RobotTable} (add, rm, move, stop, start, slots release) and
 * {@link NodeTable} ({@code nodes drain}, forced only in storms), over the simulated database, so that its reads and
 * compare-and-sets are the ones the CLI sends, and each can be lost, late or duplicated like any other request. What it
 * picks is random: often an id removed a moment ago (rm then add), and some robots that crash every few checkpoints
 * (the supervisor restarts them, and gives a crash loop up as FAILED until a start).
 */
final class SimOperator {

    private final Sim sim;
    private final SimDatabase db;
    private final RobotTable table;
    private final SimRobotStore robots;
    private final SimRobotIds ids;
    private final int slotCount;
    private final SimChecker checker;
    private final NodeTable nodes;
    private final List<NodeId> nodeIds;
    private final BooleanSupplier storming;
    private final List<String> removedIds = new ArrayList<>();
    private int nextRobot;
    private int maxRobots = Integer.MAX_VALUE;

    SimOperator(
            Sim sim,
            SimDatabase db,
            int slotCount,
            SimChecker checker,
            SimNodeRegistry registry,
            List<NodeId> nodeIds,
            BooleanSupplier storming) {
        this.sim = sim;
        this.nodes = ApiAccess.nodeTable(registry, new SimSlotStore(db));
        this.nodeIds = nodeIds;
        this.storming = storming;
        this.db = db;
        this.checker = checker;
        this.slotCount = slotCount;
        this.robots = new SimRobotStore(db);
        this.ids = new SimRobotIds(db);
        this.table = RobotApiAccess.robotTable(robots, ids, ApiAccess.slotTable(new SimSlotStore(db)));
    }

    private String randomSlot() {
        return "slot-" + sim.random.nextInt(slotCount);
    }

    /** A robot straight into the database, before any node starts, as from before the id registry: no entry. */
    void seed(String id) {
        Document robot = RobotCodec.newRobot(id, "sim", randomSlot(), sim.random.nextInt(3), 1, config());
        robot.put(INCARNATION, ids.newIncarnation());
        robots.insert(robot);
        db.commit();
    }

    /** A counter's config: its interval, and for a few, a crash every few checkpoints. */
    private Document config() {
        Document config = new Document("intervalMs", 20 + sim.random.nextInt(180));
        if (sim.chance(0.1)) {
            config.append("crashEvery", 2 + sim.random.nextInt(6));
        }
        return config;
    }

    String newId() {
        return "r" + nextRobot++;
    }

    void maxRobots(int max) {
        this.maxRobots = max;
    }

    /**
     * One random command; a command that fails (a timeout, a refusal) is the operator's problem, not the protocol's.
     */
    void act() {
        List<String> ids = new ArrayList<>(db.robots.committed.keySet());
        String id = ids.isEmpty() ? null : ids.get(sim.random.nextInt(ids.size()));
        double r = sim.random.nextDouble();
        try {
            if ((r < 0.20 || id == null) && ids.size() < maxRobots) {
                // Often an id removed a moment ago: rm followed by add is what hole 3 was about.
                String fresh =
                        !removedIds.isEmpty() && sim.chance(0.7) ? removedIds.remove(removedIds.size() - 1) : newId();
                String slot = randomSlot();
                sim.note("operator: add " + fresh + " to " + slot);
                table.add(
                        new RobotTable.NewRobot(fresh, "sim", slot, sim.random.nextInt(3), 1, config()),
                        OptionalDouble.empty());
            } else if (id == null) {
                return;
            } else if (r < 0.40) {
                sim.note("operator: rm " + id);
                table.remove(id);
                removedIds.add(id);
            } else if (r < 0.65) {
                String to = randomSlot();
                sim.note("operator: move " + id + " to " + to + ": " + table.move(id, to));
            } else if (r < 0.78) {
                sim.note("operator: stop " + id);
                table.stop(id);
            } else if (r < 0.93) {
                sim.note("operator: start " + id);
                table.start(id);
            } else if (r < 0.96) {
                // A forced drain may leave a slot with nowhere to go: only in storms, where nothing is promised.
                NodeId node = nodeIds.get(sim.random.nextInt(nodeIds.size()));
                boolean force = storming.getAsBoolean() && sim.chance(0.3);
                sim.note("operator: nodes drain " + node + (force ? " --force" : ""));
                if (force) {
                    nodes.forceDrain(node);
                } else {
                    nodes.drain(node);
                }
                checker.drains++;
            } else {
                String slot = randomSlot();
                Optional<SlotView> released = table.forceRelease(slot);
                released.ifPresent(before -> {
                    sim.note("operator: slots release " + slot + "@" + before.epoch());
                    checker.revoked(slot);
                    checker.released(slot, before.epoch());
                });
            }
        } catch (SimDatabase.Unavailable
                | SimDatabase.Unconfirmed
                | IllegalArgumentException
                | IllegalStateException e) {
            sim.note("operator: " + e.getMessage());
        }
    }
}
