package io.standby.bench.chaos;

import com.mongodb.client.model.Filters;
import io.standby.bench.Bench;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestPorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.bson.Document;

/**
 * Makes faults one after another until a deadline, each chosen from the seed: its kind, target and durations are drawn
 * in the same order whatever happens, so a seed gives the same schedule (the moments shift with how long the machine
 * takes). One fault at a time, undone before the next: every node runs again and the link is back before the next fault
 * is drawn. With watch links on, a short SIGSTOP ({@link Fault.Kind#FREEZE}) is drawn too, and a node's
 * {@code /metrics} are read just before it is stopped (its open links, for the verdict) and before it is killed (its
 * counters, for the report).
 */
final class Faults {

    private final Cluster cluster;
    private final Random random;
    private final Duration lease;
    /** The watch lease in force, or null: no watch links. */
    private final Duration watchLease;
    /** The mean time between faults, or null: 0.5 to 2 leases. */
    private final Duration every;

    private final int slots;
    private final List<String> robots;
    private final Consumer<Fault> log;
    private final List<Fault> done = new ArrayList<>();
    private final List<Facts.Renewal> renewals = new ArrayList<>();

    /**
     * How faults are drawn: from {@code seed}, held and spaced by {@code lease}, FREEZEs only with a watch lease.
     *
     * @param watchLease the nodes' watch lease, or null without watch links
     * @param every the mean time from the end of one fault to the start of the next (drawn from half of it to one and a
     *     half), or null for the suite's default of 0.5 to 2 leases
     */
    record Pace(long seed, Duration lease, Duration watchLease, Duration every) {}

    Faults(Cluster cluster, long seed, Duration lease, int slots, List<String> robots, Consumer<Fault> log) {
        this(cluster, new Pace(seed, lease, null, null), slots, robots, log);
    }

    Faults(Cluster cluster, Pace pace, int slots, List<String> robots, Consumer<Fault> log) {
        this.cluster = cluster;
        this.random = new Random(pace.seed());
        this.lease = pace.lease();
        this.watchLease = pace.watchLease();
        this.every = pace.every();
        this.slots = slots;
        this.robots = robots;
        this.log = log;
    }

    List<Fault> done() {
        return done;
    }

    List<Facts.Renewal> renewals() {
        return renewals;
    }

    void runUntil(long deadlineMillis) {
        while (System.currentTimeMillis() < deadlineMillis) {
            Fault.Kind kind = draw();
            int node = random.nextInt(cluster.nodes().size());
            double holdDraw = random.nextDouble();
            long hold = (long) (lease.toMillis() * (1 + 2 * holdDraw));
            boolean newPort = random.nextInt(3) == 0;
            int slot = random.nextInt(slots);
            int robot = random.nextInt(robots.size());
            int step = 1 + random.nextInt(Math.max(1, slots - 1));
            double pauseDraw = random.nextDouble();
            long pause = every == null
                    ? (long) (lease.toMillis() * (0.5 + 1.5 * pauseDraw))
                    : (long) (every.toMillis() * (0.5 + pauseDraw));
            if (kind == Fault.Kind.FREEZE) {
                // Past the link's deadline (0.9 watch leases), and around the claim by the link (about 1.6).
                hold = (long) (watchLease.toMillis() * (1.2 + 1.2 * holdDraw));
            }
            long start = System.currentTimeMillis();
            if (kind == Fault.Kind.FREEZE) {
                // The owner of the slot drawn: a standby's stop would judge nothing.
                node = owner(slot, node);
            }
            // A node fault on a node that exited on its own acts on it started again, as under a supervisor.
            String revived = kind.onNode() ? cluster.nodes().get(node).revive() : "";
            Fault fault = switch (kind) {
                case KILL9, SIGSTOP, SIGTERM, CUT, FREEZE ->
                    onNode(kind, cluster.nodes().get(node), hold, newPort);
                case DRAIN -> drain(cluster.nodes().get(node));
                case DB_RESTART -> {
                    cluster.database().restart();
                    yield fault(kind, "database", start, "kill -9 and start on its data, same port");
                }
                case RELEASE -> {
                    int code = cluster.cli("slots", "release", "slot-" + slot);
                    yield fault(kind, "slot-" + slot, start, "standby slots release: exit " + code);
                }
                case MOVE -> move(robots.get(robot), step, start);
                case RM_ADD -> rmAdd(robots.get(robot), start);
                // Started again 0 to 2 leases after the stop, from the hold already drawn.
                case STOP_START -> stopStart(robots.get(robot), hold - lease.toMillis(), start);
            };
            if (!revived.isEmpty()) {
                fault = fault.withDetail(revived);
            }
            done.add(fault);
            log.accept(fault);
            Bench.sleep(Duration.ofMillis(pause));
        }
    }

    private Fault.Kind draw() {
        int total = 0;
        for (Fault.Kind k : Fault.Kind.values()) {
            total += k.weight(watchLease != null);
        }
        int pick = random.nextInt(total);
        for (Fault.Kind k : Fault.Kind.values()) {
            pick -= k.weight(watchLease != null);
            if (pick < 0) {
                return k;
            }
        }
        throw new AssertionError();
    }

    /**
     * 1 if a slot owned by {@code identity} shows a late mark, 0 if it owns slots and none does, -1 if it owns none or
     * the read failed (judged by the late mark, the stricter bound).
     */
    private int markedSlots(String identity) {
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            List<SlotView> owned = new SlotTable(db)
                    .list().stream()
                            .filter(slot -> slot.owner() != null
                                    && identity.equals(slot.owner().toString()))
                            .toList();
            if (owned.isEmpty()) {
                return -1;
            }
            return owned.stream().anyMatch(slot -> slot.lateMark() != null) ? 1 : 0;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The fault's start is when it took effect (the kill returned, the signal was sent, the link paused). */
    private Fault onNode(Fault.Kind kind, Cluster.Node node, long hold, boolean newPort) {
        String detail;
        long start;
        long pid = node.process.pid();
        String identity = node.identity();
        switch (kind) {
            case KILL9 -> {
                node.kill9();
                start = System.currentTimeMillis();
                Bench.sleep(Duration.ofMillis(hold));
                if (newPort) {
                    node.port = TestPorts.free(1).getFirst();
                }
                node.start();
                detail = "kill -9 pid " + pid + ", restarted after " + hold + " ms on "
                        + (newPort ? "new " : "the same ") + "port " + node.port;
            }
            case SIGSTOP, FREEZE -> {
                return stop(kind, node, hold, pid, identity);
            }
            case SIGTERM -> {
                node.scrape();
                start = System.currentTimeMillis();
                int code = node.process.terminate(Duration.ofSeconds(60));
                node.start();
                detail = "SIGTERM: exit " + code + " after " + (System.currentTimeMillis() - start) + " ms, restarted";
            }
            case CUT -> {
                node.proxy.pause();
                start = System.currentTimeMillis();
                // What the node's slots show now that its writes have stopped landing: with its late mark, it must
                // pause by the mark; without (a watch link covered it), it runs to its lease's deadline.
                int marked = markedSlots(identity);
                Bench.sleep(Duration.ofMillis(Math.max(0, hold - (System.currentTimeMillis() - start))));
                // Read before the link resumes: frozen through all of [start, end] for the verdict.
                long end = System.currentTimeMillis();
                boolean alive = node.running();
                node.proxy.resume();
                return new Fault(
                        done.size() + 1,
                        kind,
                        node.name,
                        start,
                        end,
                        "cut off the database for " + hold + " ms",
                        pid,
                        alive,
                        identity,
                        0,
                        marked);
            }
            default -> throw new IllegalArgumentException(kind.name());
        }
        return new Fault(
                done.size() + 1,
                kind,
                node.name,
                start,
                System.currentTimeMillis(),
                detail,
                pid,
                false,
                identity,
                0,
                -1);
    }

    /**
     * SIGSTOP for {@code hold} ms, then SIGCONT. With watch links, the node's {@code /metrics} are read just before:
     * how many links from standbys it had open, which the verdict's link-deadline row needs (an owner nobody watches
     * has no link deadline). Its start is read after {@code kill -STOP} returned, its end just before {@code kill
     * -CONT} is sent (stopped through all of {@code [start, end]}), and its wake just after {@code kill -CONT}
     * returned.
     */
    private Fault stop(Fault.Kind kind, Cluster.Node node, long hold, long pid, String identity) {
        NodeScrape before = node.scrape();
        int links = before == null ? -1 : (int) before.get(NodeScrape.LINKS_OWNER);
        node.frozen = true;
        node.process.signal("STOP");
        long start = System.currentTimeMillis();
        Bench.sleep(Duration.ofMillis(hold));
        long end = System.currentTimeMillis();
        node.process.signal("CONT");
        long woke = System.currentTimeMillis();
        node.frozen = false;
        String detail = "SIGSTOP for " + hold + " ms"
                + (watchLease == null
                        ? ""
                        : String.format(
                                " (%.1f watch leases; %s)",
                                hold / (double) watchLease.toMillis(),
                                links < 0 ? "its links unknown" : links == 1 ? "1 link open" : links + " links open"))
                + ", then SIGCONT";
        return new Fault(done.size() + 1, kind, node.name, start, end, detail, pid, false, identity, woke, links);
    }

    /**
     * {@code standby node drain}, then the node's exit (it hands its slot to a standby, then exits 0) and its restart,
     * as after a SIGTERM. A drain the CLI refuses (no room elsewhere, or the node not yet registered after a restart)
     * changes nothing and is logged as such. A node that has not exited after a minute is stopped with SIGTERM, and the
     * detail says so.
     */
    private Fault drain(Cluster.Node node) {
        long pid = node.process.pid();
        String identity = node.identity();
        node.scrape();
        long start = System.currentTimeMillis();
        int code = cluster.cli("node", "drain", "127.0.0.1:" + node.port);
        String detail;
        if (code != 0) {
            detail = "standby node drain: exit " + code + " (refused, see cli.log), node left running";
        } else {
            String exit;
            try {
                exit = "exit " + node.process.awaitExit(Duration.ofSeconds(60));
            } catch (IllegalStateException e) {
                exit = "still running after 60 s, SIGTERM: exit " + node.process.terminate(Duration.ofSeconds(60));
            }
            long gone = System.currentTimeMillis() - start;
            node.start();
            detail = "standby node drain: exit 0; node " + exit + " after " + gone + " ms, restarted";
        }
        return new Fault(
                done.size() + 1,
                Fault.Kind.DRAIN,
                node.name,
                start,
                System.currentTimeMillis(),
                detail,
                pid,
                false,
                identity,
                0,
                -1);
    }

    /** {@code standby robot stop}, then {@code standby robot start} of the same robot {@code later} ms after. */
    private Fault stopStart(String robot, long later, long start) {
        int stop = cluster.cli("robot", "stop", robot);
        Bench.sleep(Duration.ofMillis(later));
        int started = cluster.cli("robot", "start", robot);
        return fault(
                Fault.Kind.STOP_START,
                robot,
                start,
                "standby robot stop: exit " + stop + ", robot start " + later + " ms later: exit " + started);
    }

    private Fault move(String robot, int step, long start) {
        int from = currentSlot(robot);
        String to = "slot-" + ((from + step) % slots);
        int code = cluster.cli("robot", "move", robot, "--slot", to);
        return fault(Fault.Kind.MOVE, robot, start, "standby robot move to " + to + ": exit " + code);
    }

    /** rm, then add again with the same config (retried: the id is free only once the old run has ended). */
    private Fault rmAdd(String robot, long start) {
        int rm = cluster.cli("robot", "rm", robot, "--wait", "20s");
        int add = -1;
        int attempts = 0;
        while (add != 0 && attempts++ < 10) {
            List<String> args =
                    new ArrayList<>(List.of("robot", "add", robot, "--type", ChaosLedger.TYPE, "--slot", "auto"));
            for (String kv : Chaos.robotConfig(robot)) {
                args.addAll(List.of("--config", kv));
            }
            add = cluster.cli(args.toArray(String[]::new));
            if (add != 0) {
                Bench.sleep(lease);
            }
        }
        renewals.add(new Facts.Renewal(robot, start, System.currentTimeMillis()));
        return fault(
                Fault.Kind.RM_ADD,
                robot,
                start,
                "standby robot rm: exit " + rm + ", robot add: exit " + add
                        + (attempts > 1 ? " (" + attempts + " attempts)" : ""));
    }

    /** The index of the node that owns {@code slot-<slot>} now, or {@code otherwise} if none of them does. */
    private int owner(int slot, int otherwise) {
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            Document doc = db.database()
                    .getCollection("slots")
                    .find(Filters.eq("_id", "slot-" + slot))
                    .first();
            Object port = doc == null ? null : doc.get("port");
            for (int i = 0; i < cluster.nodes().size(); i++) {
                if (port instanceof Number p && cluster.nodes().get(i).port == p.intValue()) {
                    return i;
                }
            }
        } catch (RuntimeException e) {
            // the database is slow or restarting: the node drawn
        }
        return otherwise;
    }

    private int currentSlot(String robot) {
        try (StandbyDatabase db = cluster.database().connect(Cluster.DB)) {
            return new RobotTable(db)
                    .get(robot)
                    .map(r -> Integer.parseInt(r.slotId().substring("slot-".length())))
                    .orElse(0);
        }
    }

    private Fault fault(Fault.Kind kind, String target, long start, String detail) {
        return Fault.offNode(done.size() + 1, kind, target, start, System.currentTimeMillis(), detail);
    }
}
