package io.standby.robot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import io.standby.slot.internal.OwnerProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated cluster, built from a seed: a replica set, a few nodes with their own clock rates, slots and robots, an
 * operator issuing commands, and storms of faults alternating with calm periods.
 */
final class SimWorld {

    static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1000), Duration.ofMillis(200));
    /**
     * Node clocks, and the server's, run up to this much fast or slow: far more than real clocks, within the fence
     * margin (a tenth of the lease, and of the late mark), which two clocks drifting apart by up to 2 × 4 % leave
     * intact. At 1 % a self-stop margin of zero went unseen for 3 million steps.
     */
    static final double MAX_DRIFT = 0.04;

    private static final long LEASE = TIMING.lease().toNanos();
    private static final SimDatabase.Faults STORM =
            new SimDatabase.Faults(0.02, 0.03, 0.02, 0.02, 0.02, 0.03, 3 * LEASE);

    final Sim sim;
    final SimDatabase db;
    final SimNodeRegistry registry;
    final SimChecker checker;
    final List<SimNode> nodes = new ArrayList<>();
    /**
     * Whether nodes take over from owners found gone (fast failover): on for even seeds, so that both ways of taking a
     * slot over run under the same faults, without a draw that would change every seed.
     */
    final boolean fastFailover;
    /**
     * Whether nodes keep watch links and take over within a watch lease of an owner's death: on for seeds whose half is
     * even, so that it runs both with and without fast failover.
     */
    final boolean watchLinks;

    final SimWatchNet watchNet;
    /**
     * The owners' watch lease: shorter than the late mark, as a real one is; on some seeds the shortest the builder
     * accepts (100 ms), whose margin (20 ms) is below the lease's and the late mark's, so that the fence check must run
     * at a quarter of it.
     */
    final Duration watchLease;

    private final SimOperator operator;
    private final int slotCount;
    private final int maxRobots;
    private boolean storming;
    /** This storm's clock trouble: the server's clock jumped, or a node's runs fast; never both. */
    private boolean serverClockJumped;

    private boolean fastClocks;
    /** The last calm period has begun: no storm comes after it. */
    private boolean over;

    SimWorld(long seed) {
        this(seed, false);
    }

    /** @param slowCalls whether database calls take time in storms, so that nodes' requests interleave */
    SimWorld(long seed, boolean slowCalls) {
        this.sim = new Sim(seed, Integer.getInteger("standby.sim.trace", 80));
        this.db = new SimDatabase(sim);
        db.rate(1 + (sim.random.nextDouble() * 2 - 1) * MAX_DRIFT);
        if (slowCalls) {
            db.latency(0.05, LEASE / 4);
        }
        this.registry = new SimNodeRegistry(db, SimNodeRegistry.newContents());
        this.checker = new SimChecker(sim, this);
        db.checker = checker;
        this.fastFailover = seed % 2 == 0;
        this.watchLinks = Boolean.getBoolean("standby.sim.watch") || (seed / 2) % 2 == 0;
        this.watchLease = Duration.ofMillis((seed / 4) % 2 == 0 ? 300 : 100);
        this.watchNet = new SimWatchNet(this);
        int nodeCount = 3 + sim.random.nextInt(4);
        this.slotCount = 2 + sim.random.nextInt(4);
        int maxSlots = 1 + sim.random.nextInt(2);
        // Room for every slot even with one node down.
        maxSlots = Math.max(maxSlots, (slotCount + nodeCount - 2) / (nodeCount - 1));
        this.maxRobots = 8 + sim.random.nextInt(20);
        List<NodeId> ids = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            ids.add(new NodeId("10.0.0." + (i + 1), 7700));
        }
        this.operator = new SimOperator(sim, db, slotCount, checker, registry, ids, () -> storming);
        operator.maxRobots(maxRobots);
        SimSlotStore slots = new SimSlotStore(db);
        for (int i = 0; i < slotCount; i++) {
            slots.create("slot-" + i);
        }
        for (int i = 0; i < maxRobots / 2; i++) {
            operator.seed(operator.newId());
        }
        for (int i = 0; i < nodeCount; i++) {
            double rate = 1 + (sim.random.nextDouble() * 2 - 1) * MAX_DRIFT;
            nodes.add(new SimNode(this, ids.get(i), maxSlots, TIMING, rate));
        }
        sim.note("world: " + nodeCount + " nodes (max " + maxSlots + " slots each), " + slotCount + " slots, up to "
                + maxRobots + " robots, fast failover " + (fastFailover ? "on" : "off") + ", watch links "
                + (watchLinks ? "on (watch lease " + watchLease.toMillis() + " ms)" : "off"));
    }

    /**
     * Runs storms and calm periods for {@code steps} steps, then a last calm period without faults or commands, then
     * checks the end state.
     */
    void run(long steps) {
        sim.afterEachStep(checker::check);
        for (SimNode node : nodes) {
            sim.after(sim.between(0, TIMING.poll().toNanos()), node::start);
        }
        every(50, 300, () -> {
            if (!over) {
                operator.act();
            }
        });
        every(100, 400, this::chaos);
        every(20, 100, () -> {
            if (!storming || sim.chance(0.5)) {
                db.commit();
            }
        });
        storm();
        sim.runUntil(Long.MAX_VALUE, () -> false, steps);
        over = true;
        calm();
        // Long enough for a full resync: an operator's or a hand-over's touch of a slot may have been lost.
        sim.runUntil(
                sim.now() + Math.max(10 * LEASE, SlotRuns.RESYNC.toNanos() + 5 * LEASE), () -> false, Long.MAX_VALUE);
        checker.settled();
    }

    private void every(long fromMs, long toMs, Runnable action) {
        sim.after(sim.between(fromMs * Sim.MS, toMs * Sim.MS), () -> {
            action.run();
            every(fromMs, toMs, action);
        });
    }

    private void storm() {
        if (over) {
            return;
        }
        storming = true;
        db.faults(STORM);
        checker.storm();
        sim.note("world: storm");
        sim.after(sim.between(3 * LEASE, 10 * LEASE), this::calm);
    }

    private void calm() {
        if (!storming) {
            return;
        }
        storming = false;
        serverClockJumped = false;
        fastClocks = false;
        db.faults(SimDatabase.Faults.NONE);
        db.commit();
        long settled = Math.max(Math.max(sim.now(), db.lastLateDelivery()), db.noPrimaryUntil());
        for (SimNode node : nodes) {
            if (node.rate != node.baseRate) {
                node.rate(node.baseRate);
            }
            if (!node.up) {
                node.start();
            }
            settled = Math.max(settled, node.pausedUntil);
        }
        long poll = TIMING.poll().toNanos();
        // Lease + 2 polls on the slowest clock against the fastest, each poll's timer up to SimNode.LATE late.
        checker.calm(settled, (long) ((LEASE + 2 * poll) * (1 + 2 * MAX_DRIFT)) + 2 * SimNode.LATE + 50 * Sim.MS);
        sim.note("world: calm");
        sim.after(sim.between(4 * LEASE, 8 * LEASE), this::storm);
    }

    private void chaos() {
        if (!storming) {
            return;
        }
        SimNode node = nodes.get(sim.random.nextInt(nodes.size()));
        double r = sim.random.nextDouble();
        if (r < 0.15) {
            if (node.up) {
                node.pause(sim.between(LEASE / 3, 3 * LEASE));
            }
        } else if (r < 0.25) {
            if (node.up && sim.now() >= node.pausedUntil) {
                node.kill();
                restartLater(node);
            }
        } else if (r < 0.32) {
            if (node.terminate()) {
                restartLater(node);
            }
        } else if (r < 0.40) {
            db.failover(sim.between(LEASE / 20, 3 * LEASE / 2));
        } else if (r < 0.44) {
            if (fastClocks) {
                return;
            }
            serverClockJumped = true;
            db.jumpServerClock(sim.between(LEASE / 2, 3 * LEASE) / Sim.MS);
            if (sim.chance(0.5)) {
                // Every live owner looks late at once: with a false refusal, only a standby's own clock
                // tells a timely owner from a late one.
                long rejecting = sim.between(LEASE / 2, 3 * LEASE);
                nodes.forEach(n -> n.reject(rejecting));
            }
        } else if (r < 0.47) {
            // A clock that runs fast beyond the drift bound (a broken clock source) until the calm. Never in
            // the storm of a server clock jump: a lease is judged by both clocks so that either one alone may
            // fail, and with both wrong nothing can tell a live lease from an expired one.
            if (serverClockJumped) {
                return;
            }
            fastClocks = true;
            node.rate(node.baseRate * (1.1 + sim.random.nextDouble() * 0.2));
        } else if (r < 0.52) {
            // A live process refused all the same: a REJECT rule, an address moved to another host, a
            // listener closed while the process lives. Often with a pause, the case that made two runners.
            node.reject(sim.between(LEASE / 2, 3 * LEASE));
            if (node.up && sim.chance(0.5)) {
                node.pause(sim.between(LEASE / 3, 3 * LEASE));
            }
        } else if (r < 0.60 && watchLinks) {
            // A watch link breaks, half open or whole, or the network turns slow.
            watchNet.fault();
        }
    }

    void restartLater(SimNode node) {
        sim.after(sim.between(LEASE / 5, 3 * LEASE), () -> {
            if (!node.up) {
                node.start();
            }
        });
    }

    /**
     * A connect to a node's address: a live process accepts, a paused one too (its kernel does); a killed one, until it
     * is started again, refuses. Nobody listens at an address that is no node's. False refusals: an address under a
     * REJECT rule refuses whether its process lives or not, and in a storm a connect may also time out or fail, which
     * proves nothing either way.
     */
    OwnerProbe.Result probe(NodeId node) {
        if (storming && sim.chance(0.05)) {
            return sim.chance(0.5) ? OwnerProbe.Result.TIMEOUT : OwnerProbe.Result.ERROR;
        }
        return nodes.stream()
                .filter(n -> n.id.equals(node))
                .findFirst()
                .map(n ->
                        n.up && sim.now() >= n.rejectingUntil ? OwnerProbe.Result.ACCEPTED : OwnerProbe.Result.REFUSED)
                .orElse(OwnerProbe.Result.REFUSED);
    }
}
