package io.standby.robot.internal;

import static io.standby.robot.internal.SimDatabase.number;
import static io.standby.robot.internal.SimDatabase.string;
import static io.standby.robot.model.RobotFields.CONTEXT;
import static io.standby.robot.model.RobotFields.DESIRED;
import static io.standby.robot.model.RobotFields.EPOCH;
import static io.standby.robot.model.RobotFields.INCARNATION;
import static io.standby.robot.model.RobotFields.NODE;
import static io.standby.robot.model.RobotFields.SLOT;
import static io.standby.robot.model.RobotFields.STATE;
import static io.standby.robot.model.RobotFields.TARGET;

import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.slot.Lease;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The invariants, checked after every step of the simulation:
 *
 * <ul>
 *   <li>at most one runner per robot: never two runs of one robot id (any incarnations) that are alive and whose lease
 *       is valid on their own node's clock at the same instant;
 *   <li>no acknowledged checkpoint lost or rolled back: the majority-committed count of a robot never falls below the
 *       highest count acknowledged to any of its runs, never goes back, and every run starts from at least that count;
 *   <li>every slot served: in calm periods (no faults, every node up), no slot stays without a valid lease longer than
 *       lease + 2 polls (with the clocks' drift);
 * </ul>
 *
 * and at the end, after a calm period: every robot wanted running runs on its slot's owner, no other robot runs, and
 * every removal and move was completed.
 */
final class SimChecker {

    /** An invariant broke; the message names it, and the test adds the seed and the trace. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }

        Violation(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Sim sim;
    private final SimWorld world;
    private final Map<String, List<SimRobot>> alive = new TreeMap<>();
    /** By robot id and incarnation: the highest count acknowledged to any run of it. */
    private final Map<String, Long> acked = new HashMap<>();
    /** By robot id and incarnation: the highest committed count seen. */
    private final Map<String, Long> committed = new HashMap<>();

    private final Map<String, Long> unservedSince = new HashMap<>();
    /** The processes that claimed slots at the last check, by name and generation. */
    private Set<String> claimingBefore = Set.of();

    private long calmFrom = Long.MAX_VALUE;
    private long bound;
    long launches;
    long crashes;
    long forcedReleases;
    long drains;
    long drained;
    long identityLosses;
    long acknowledgements;
    long longestGapInCalm;

    SimChecker(Sim sim, SimWorld world) {
        this.sim = sim;
        this.world = world;
    }

    private static String key(RobotToken token) {
        return token.robotId() + "/" + token.incarnation();
    }

    void launched(SimRobot run) {
        launches++;
        long before = acked.getOrDefault(key(run.token), 0L);
        if (run.restored < before) {
            throw sim.failed(new Violation(run + " restored " + run.restored + ", below the acknowledged " + before));
        }
        alive.computeIfAbsent(run.token.robotId(), id -> new ArrayList<>()).add(run);
        check();
    }

    void ended(SimRobot run) {
        List<SimRobot> runs = alive.get(run.token.robotId());
        if (runs != null) {
            runs.remove(run);
        }
    }

    void acked(SimRobot run, long count) {
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
        forcedReleases++;
        unservedSince.put(slotId, sim.now());
    }

    /**
     * A graceful release (SIGTERM, a drain) is about to free a slot: its robots on this node must have stopped first,
     * on their own or, past the stop timeout, by an interrupt.
     */
    void releasing(SimNode node, Lease lease) {
        for (List<SimRobot> robots : alive.values()) {
            for (SimRobot robot : robots) {
                if (robot.node == node
                        && !robot.ended()
                        && !robot.finishing()
                        && robot.lease.slotId().equals(lease.slotId())
                        && robot.lease.epoch() == lease.epoch()) {
                    throw sim.failed(new Violation(node + " releases " + lease.slotId() + "@" + lease.epoch()
                            + " while " + robot + " still runs"));
                }
            }
        }
    }

    /** The tokens a forced release ended: by robot id and incarnation, the slot, epoch and fences it had then. */
    private final Map<String, RobotToken> releasedTokens = new HashMap<>();

    /**
     * A forced release returned: the slot's epoch is raised, and from now on no write under a token that a robot of the
     * slot held until then is accepted (every robot of the slot was fenced before it returned). A robot that arrives in
     * the slot afterwards (a move's hand-over) may still be taken by the former owner until it notices, within a
     * heartbeat, under a token of its own: no other node can run it before the lease runs out.
     */
    void released(String slotId, long epoch) {
        BsonDocument slot = world.db.slots.primary.get(slotId);
        if (number(slot, EPOCH) <= epoch) {
            throw sim.failed(new Violation("slots release " + slotId + "@" + epoch + " returned with the slot at epoch "
                    + number(slot, EPOCH)));
        }
        for (BsonDocument doc : world.db.robots.primary.values()) {
            if (slotId.equals(string(doc, SLOT))) {
                releasedTokens.put(
                        SimDatabase.id(doc) + "/" + string(doc, INCARNATION),
                        new RobotToken(
                                SimDatabase.id(doc),
                                string(doc, INCARNATION),
                                slotId,
                                epoch,
                                number(doc, RobotFields.FENCES)));
            }
        }
    }

    /** A write under {@code token} was accepted by the primary. */
    void accepted(RobotToken token) {
        RobotToken ended = releasedTokens.get(key(token));
        if (ended != null
                && token.slotId().equals(ended.slotId())
                && token.epoch() <= ended.epoch()
                && token.fences() <= ended.fences()) {
            throw sim.failed(new Violation("a write under " + token + " was accepted after slots release "
                    + ended.slotId() + "@" + ended.epoch() + " returned"));
        }
    }

    void storm() {
        calmFrom = Long.MAX_VALUE;
    }

    void check() {
        oneRunnerPerRobot();
        oneValidLeasePerSlot();
        noPathToARunningSlot();
        noAcknowledgedProgressLost();
        if (sim.now() >= calmFrom) {
            everySlotServed();
        }
    }

    /**
     * How long a robot's code may go on after its lease ended while its node runs: the fence check's period and
     * lateness, and the moment an interrupted thread takes to be scheduled. A pause does not count: a stopped process
     * runs no code.
     */
    static final long RAN_PAST = 50 * Sim.MS;

    private void oneRunnerPerRobot() {
        for (List<SimRobot> runs : alive.values()) {
            for (SimRobot run : runs) {
                ranPastItsLease(run);
            }
            if (runs.size() < 2) {
                continue;
            }
            // A run whose robot has returned runs no robot code: its last words (a hand-over, a final status)
            // may still be in flight, under its token, while the next runner starts.
            List<SimRobot> valid = runs.stream()
                    .filter(r -> !r.ended() && !r.finishing() && r.lease.isValid())
                    .toList();
            if (valid.size() > 1) {
                throw sim.failed(new Violation("two runners at once: " + valid));
            }
        }
    }

    /**
     * A robot's code stops soon after its lease ends, whatever ended it (a fence, a pause at the late mark, a release):
     * a runner without a lease is a second runner once another node takes the slot.
     */
    private void ranPastItsLease(SimRobot run) {
        if (run.ended() || run.finishing() || run.lease.isValid() || sim.now() < run.node.pausedUntil) {
            run.invalidSince = -1;
            return;
        }
        if (run.invalidSince < 0) {
            run.invalidSince = sim.now();
        } else if (sim.now() - run.invalidSince > RAN_PAST) {
            throw sim.failed(new Violation(
                    run + " still runs " + (sim.now() - run.invalidSince) / Sim.MS + " ms after its lease ended"));
        }
    }

    /**
     * No node holds more valid leases than its maximum, and at most one node believes, on its own clock, that it holds
     * a valid lease on a slot at any instant, whether or not any robot of the slot runs: the leases' own deadlines (the
     * lease's and, with fast failover, the late mark's) must close before any other node can win the slot by any path.
     */
    private void oneValidLeasePerSlot() {
        Map<String, SimNode> holder = new HashMap<>();
        for (SimNode node : world.nodes) {
            if (node.validLeases().size() > node.maxSlots) {
                throw sim.failed(new Violation(node + " holds "
                        + node.validLeases().size() + " valid leases, more than its " + node.maxSlots + " slots"));
            }
            for (Lease lease : node.validLeases()) {
                SimNode other = holder.put(lease.slotId(), node);
                if (other != null && other != node) {
                    throw sim.failed(new Violation("two valid leases on " + lease.slotId() + " at once: " + other
                            + " and " + node + " (epoch " + lease.epoch() + ")"));
                }
            }
        }
    }

    /**
     * An owner whose robots still run, under a lease valid on its own clock, has a lease that no other node could take
     * at its next poll by any path (expiry, fast failover whatever a probe answers, a take-back), by what that node has
     * itself observed and the slot as the primary holds it now.
     */
    private void noPathToARunningSlot() {
        Map<String, SimRobot> running = new TreeMap<>();
        for (List<SimRobot> robots : alive.values()) {
            for (SimRobot robot : robots) {
                if (!robot.ended() && !robot.finishing() && robot.node.up && robot.lease.isValid()) {
                    running.putIfAbsent(robot.lease.slotId(), robot);
                }
            }
        }
        for (SimRobot robot : running.values()) {
            BsonDocument doc = world.db.slots.primary.get(robot.lease.slotId());
            io.standby.slot.SlotView slot = SimSlotStore.view(doc, world.db.serverNowMs());
            for (SimNode node : world.nodes) {
                if (node != robot.node && node.up && node.protocol.mayTake(slot)) {
                    throw sim.failed(new Violation(node + " may take " + slot.id() + " (epoch " + slot.epoch()
                            + ", age " + slot.age().toMillis() + " ms) while " + robot + " runs under a valid lease"));
                }
            }
        }
    }

    private void noAcknowledgedProgressLost() {
        for (Map.Entry<String, Long> entry : acked.entrySet()) {
            String key = entry.getKey();
            String id = key.substring(0, key.indexOf('/'));
            BsonDocument doc = world.db.robots.committed.get(id);
            if (doc == null || !key.equals(id + "/" + string(doc, INCARNATION))) {
                continue; // removed: its context went with it
            }
            long count = count(doc);
            if (count < entry.getValue()) {
                throw sim.failed(new Violation(
                        key + ": committed count " + count + " is below the acknowledged " + entry.getValue()));
            }
            Long before = committed.put(key, count);
            if (before != null && count < before) {
                throw sim.failed(new Violation(key + ": committed count went back from " + before + " to " + count));
            }
        }
    }

    private void everySlotServed() {
        // Served while there is room: drains and their stops may leave fewer claiming nodes than slots.
        int room = world.nodes.stream()
                .filter(SimNode::claiming)
                .mapToInt(n -> n.maxSlots)
                .sum();
        // Every document of the slots collection is a slot: an owner document there would count as one never served.
        List<String> slotIds = List.copyOf(world.db.slots.committed.keySet());
        if (room < slotIds.size()) {
            unservedSince.clear();
            return;
        }
        // A process that starts claiming trusts no expiry before it has watched the slot for a lease itself:
        // if the room it brings is what a slot was waiting for, the slot's bound counts from its start.
        Set<String> claimingNow = world.nodes.stream()
                .filter(SimNode::claiming)
                .map(n -> n.name() + "#" + n.generation)
                .collect(java.util.stream.Collectors.toSet());
        if (!claimingBefore.containsAll(claimingNow)) {
            unservedSince.replaceAll((slot, since) -> Math.max(since, sim.now()));
        }
        claimingBefore = claimingNow;
        for (String slot : slotIds) {
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
                throw sim.failed(new Violation(slot + " unserved for " + gap / Sim.MS + " ms in a calm period (bound "
                        + bound / Sim.MS + " ms)"));
            }
        }
    }

    /** The committed {@code context.count} of a robot: 0 before its first checkpoint. */
    private static long count(BsonDocument doc) {
        BsonValue count = doc.get(CONTEXT) instanceof BsonDocument context ? context.get("count") : null;
        return count == null ? 0 : count.asNumber().longValue();
    }

    private String describe(BsonDocument doc) {
        BsonDocument slot = world.db.slots.committed.get(string(doc, SLOT));
        return "robot {desired " + string(doc, DESIRED) + ", state " + string(doc, STATE) + ", node "
                + string(doc, NODE)
                + ", epoch " + number(doc, EPOCH) + ", target " + string(doc, TARGET) + ", count " + count(doc)
                + "}, slot "
                + slot.toJson() + "; "
                + world.nodes.stream().map(SimNode::describe).toList();
    }

    /** After a calm period: the robots are where the operator wants them, and nothing is left half-done. */
    void settled() {
        for (BsonDocument doc : world.db.robots.committed.values()) {
            String id = SimDatabase.id(doc);
            String slotId = string(doc, SLOT);
            String desired = string(doc, DESIRED);
            List<SimRobot> runs = alive.getOrDefault(id, List.of()).stream()
                    .filter(r -> !r.ended())
                    .toList();
            String owner = world.nodes.stream()
                    .filter(n ->
                            n.validLeases().stream().anyMatch(l -> l.slotId().equals(slotId)))
                    .map(SimNode::name)
                    .findFirst()
                    .orElse(null);
            if ("removed".equals(desired)) {
                throw sim.failed(new Violation(
                        id + " was never deleted after its removal (on " + string(doc, NODE) + ", runs " + runs + ")"));
            }
            if (string(doc, TARGET) != null) {
                throw sim.failed(new Violation(id + " never moved from " + slotId + " to " + string(doc, TARGET)));
            }
            if ("running".equals(desired) && "FAILED".equals(string(doc, STATE))) {
                // A crash loop its supervisor gave up on: it runs again only after a start.
                if (!runs.isEmpty()) {
                    throw sim.failed(new Violation(id + " FAILED but runs: " + runs));
                }
            } else if ("running".equals(desired)) {
                // A robot that crashes now and then is between two runs of its code while its supervisor waits
                // out the backoff: its run is alive on its node all the same.
                List<SimNode> hosts =
                        world.nodes.stream().filter(n -> n.runsRobot(id)).toList();
                boolean codeRunsRight = runs.isEmpty()
                        || runs.size() == 1
                                && runs.getFirst().node.name().equals(owner)
                                && runs.getFirst().token.incarnation().equals(string(doc, INCARNATION));
                if (hosts.size() != 1 || !hosts.getFirst().name().equals(owner) || !codeRunsRight) {
                    throw sim.failed(new Violation(id + "/" + string(doc, INCARNATION) + " in " + slotId + " (owner "
                            + owner + ") should run there once, runs: " + runs + " on " + hosts + "; "
                            + describe(doc)));
                }
            } else if (!runs.isEmpty()) {
                throw sim.failed(new Violation(id + " is " + desired + " but runs: " + runs));
            }
        }
    }
}
