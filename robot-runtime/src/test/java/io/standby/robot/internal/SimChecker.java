package io.standby.robot.internal;

import io.standby.robot.internal.SimDatabase.RobotDoc;
import io.standby.slot.Lease;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The invariants, checked after every step of the simulation:
 * <ul>
 *   <li>at most one runner per robot: never two runs of one robot id (any incarnations) that are alive and
 *       whose lease is valid on their own node's clock at the same instant;</li>
 *   <li>no acknowledged checkpoint lost or rolled back: the majority-committed count of a robot never falls
 *       below the highest count acknowledged to any of its runs, never goes back, and every run starts
 *       from at least that count;</li>
 *   <li>every slot served: in calm periods (no faults, every node up), no slot stays without a valid lease
 *       longer than lease + 2 polls (with the clocks' drift);</li>
 * </ul>
 * and at the end, after a calm period: every robot wanted running runs on its slot's owner, no other
 * robot runs, and every removal and move was completed.
 */
final class SimChecker {

    /** An invariant broke; the message names it, and the test adds the seed and the trace. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }
    }

    private final Sim sim;
    private final SimWorld world;
    private final Map<String, List<SimRun>> alive = new TreeMap<>();
    /** By robot id and incarnation: the highest count acknowledged to any run of it. */
    private final Map<String, Long> acked = new HashMap<>();
    /** By robot id and incarnation: the highest committed count seen. */
    private final Map<String, Long> committed = new HashMap<>();
    private final Map<String, Long> unservedSince = new HashMap<>();
    private long calmFrom = Long.MAX_VALUE;
    private long bound;
    long launches;
    long acknowledgements;
    long longestGapInCalm;

    SimChecker(Sim sim, SimWorld world) {
        this.sim = sim;
        this.world = world;
    }

    private static String key(RobotToken token) {
        return token.robotId() + "/" + token.incarnation();
    }

    void launched(SimRun run) {
        launches++;
        long before = acked.getOrDefault(key(run.token), 0L);
        if (run.restored < before) {
            throw new Violation(run + " restored " + run.restored + ", below the acknowledged " + before);
        }
        alive.computeIfAbsent(run.token.robotId(), id -> new ArrayList<>()).add(run);
        check();
    }

    void ended(SimRun run) {
        List<SimRun> runs = alive.get(run.token.robotId());
        if (runs != null) {
            runs.remove(run);
        }
    }

    void acked(SimRun run, long count) {
        acknowledgements++;
        acked.merge(key(run.token), count, Math::max);
    }

    /** From {@code from} on, and until {@link #storm()}, every slot must be served within {@code bound}. */
    void calm(long from, long bound) {
        this.calmFrom = from;
        this.bound = bound;
        unservedSince.clear();
    }

    /** A forced release makes a slot wait out the lease: its bound counts from the release. */
    void revoked(String slotId) {
        unservedSince.put(slotId, sim.now());
    }

    void storm() {
        calmFrom = Long.MAX_VALUE;
    }

    void check() {
        oneRunnerPerRobot();
        noAcknowledgedProgressLost();
        if (sim.now() >= calmFrom) {
            everySlotServed();
        }
    }

    private void oneRunnerPerRobot() {
        for (List<SimRun> runs : alive.values()) {
            if (runs.size() < 2) {
                continue;
            }
            List<SimRun> valid = runs.stream().filter(r -> !r.ended() && r.lease.isValid()).toList();
            if (valid.size() > 1) {
                throw new Violation("two runners at once: " + valid);
            }
        }
    }

    private void noAcknowledgedProgressLost() {
        for (Map.Entry<String, Long> entry : acked.entrySet()) {
            String key = entry.getKey();
            String id = key.substring(0, key.indexOf('/'));
            RobotDoc doc = world.db.committedRobots.get(id);
            if (doc == null || !key.equals(id + "/" + doc.incarnation)) {
                continue;   // removed: its context went with it
            }
            long count = doc.count == null ? 0 : doc.count;
            if (count < entry.getValue()) {
                throw new Violation(key + ": committed count " + count + " is below the acknowledged " + entry.getValue());
            }
            Long before = committed.put(key, count);
            if (before != null && count < before) {
                throw new Violation(key + ": committed count went back from " + before + " to " + count);
            }
        }
    }

    private void everySlotServed() {
        for (String slot : world.db.committedSlots.keySet()) {
            boolean served = false;
            for (SimNode node : world.nodes) {
                for (Lease lease : node.validLeases()) {
                    served |= lease.slotId().equals(slot);
                }
            }
            if (served) {
                // A forced release leaves its owner serving the slot until it notices: the clock starts then.
                Long since = unservedSince.remove(slot);
                if (since != null) {
                    longestGapInCalm = Math.max(longestGapInCalm, sim.now() - Math.max(since, calmFrom));
                }
                continue;
            }
            long since = unservedSince.computeIfAbsent(slot, s -> sim.now());
            long gap = sim.now() - Math.max(since, calmFrom);
            if (gap > bound) {
                throw new Violation(slot + " unserved for " + gap / Sim.MS + " ms in a calm period (bound " + bound / Sim.MS + " ms)");
            }
        }
    }

    private String describe(RobotDoc doc) {
        SimDatabase.SlotDoc slot = world.db.committedSlots.get(doc.slotId);
        return "robot {desired " + doc.desired + ", state " + doc.state + ", node " + doc.node + ", epoch " + doc.epoch
                + ", target " + doc.target + ", count " + doc.count + "}, slot {" + slot.ip + ":" + slot.port + ", epoch " + slot.epoch
                + ", instance " + slot.instance + "}; " + world.nodes.stream().map(SimNode::describe).toList();
    }

    /** After a calm period: the robots are where the operator wants them, and nothing is left half-done. */
    void settled() {
        for (RobotDoc doc : world.db.committedRobots.values()) {
            List<SimRun> runs = alive.getOrDefault(doc.id, List.of()).stream().filter(r -> !r.ended()).toList();
            String owner = world.nodes.stream()
                    .filter(n -> n.validLeases().stream().anyMatch(l -> l.slotId().equals(doc.slotId)))
                    .map(SimNode::name).findFirst().orElse(null);
            if (doc.desired.equals("removed")) {
                throw new Violation(doc.id + " was never deleted after its removal (on " + doc.node + ", runs " + runs + ")");
            }
            if (doc.target != null) {
                throw new Violation(doc.id + " never moved from " + doc.slotId + " to " + doc.target);
            }
            if (doc.desired.equals("running")) {
                if (runs.size() != 1 || !runs.getFirst().node.name().equals(owner)
                        || !runs.getFirst().token.incarnation().equals(doc.incarnation)) {
                    throw new Violation(doc.id + "/" + doc.incarnation + " in " + doc.slotId + " (owner " + owner
                            + ") should run there once, runs: " + runs + "; " + describe(doc));
                }
            } else if (!runs.isEmpty()) {
                throw new Violation(doc.id + " is " + doc.desired + " but runs: " + runs);
            }
        }
    }
}
