package io.standby.robot.internal;

import io.standby.slot.SlotView;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The simulated replica set: a primary that applies every write it receives, and the majority-committed
 * state that reads (read concern majority) see. An acknowledged write (w: majority) commits everything
 * applied before it; replication commits the rest in the background; a failover rolls back whatever no
 * majority had yet. Between a caller and the primary, a request can be lost, its reply lost, its
 * delivery delayed past newer requests, or duplicated; and a write can be applied but not confirmed.
 */
final class SimDatabase {

    /** Thrown where the driver would throw a timeout or a not-primary error: the caller may retry. */
    static final class Unavailable extends RuntimeException {
        Unavailable(String message) {
            super(message, null, false, false);
        }
    }

    /** Thrown where the driver would report a write-concern error: applied on the primary, not confirmed. */
    static final class Unconfirmed extends RuntimeException {
        Unconfirmed(String message) {
            super(message, null, false, false);
        }
    }

    enum Fault { NONE, LOST_REQUEST, LOST_REPLY, DELAYED, DUPLICATE, UNCONFIRMED }

    static final class SlotDoc {
        String id;
        String ip;
        Integer port;
        String instance;
        long timeMs;
        long leaseMs;
        /** The owner's late mark, or null. */
        Long lateMs;
        long epoch;
        long changes;
        /** The drain request on the slot, or null. */
        SlotView.Drain drain;

        SlotDoc copy() {
            SlotDoc c = new SlotDoc();
            c.id = id;
            c.ip = ip;
            c.port = port;
            c.instance = instance;
            c.timeMs = timeMs;
            c.leaseMs = leaseMs;
            c.lateMs = lateMs;
            c.epoch = epoch;
            c.changes = changes;
            c.drain = drain;
            return c;
        }
    }

    static final class RobotDoc {
        String id;
        String incarnation;
        String slotId;
        int priority;
        long intervalMs;
        String desired = "running";
        String state = "PENDING";
        String node;
        Long count;
        long seq;
        long statusSeq;
        long epoch;
        long fences;
        int restarts;
        String target;

        RobotDoc copy() {
            RobotDoc c = new RobotDoc();
            c.id = id;
            c.incarnation = incarnation;
            c.slotId = slotId;
            c.priority = priority;
            c.intervalMs = intervalMs;
            c.desired = desired;
            c.state = state;
            c.node = node;
            c.count = count;
            c.seq = seq;
            c.statusSeq = statusSeq;
            c.epoch = epoch;
            c.fences = fences;
            c.restarts = restarts;
            c.target = target;
            return c;
        }
    }

    /** How likely each fault is on one call while faults are on. */
    record Faults(double lostRequest, double lostReply, double delayed, double duplicate, double unconfirmed,
                  double failedRead, long maxDelayNanos) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0);
    }

    private final Sim sim;
    final Map<String, SlotDoc> slots = new TreeMap<>();
    final Map<String, RobotDoc> robots = new TreeMap<>();
    final Map<String, SlotDoc> committedSlots = new TreeMap<>();
    final Map<String, RobotDoc> committedRobots = new TreeMap<>();
    private final Set<String> dirtySlots = new HashSet<>();
    private final Set<String> dirtyRobots = new HashSet<>();
    private Faults faults = Faults.NONE;
    private long serverOffsetMs = 1_800_000_000_000L;
    private long noPrimaryUntil;
    private long lastLateDelivery;
    int lateDeliveries;
    int rollbacks;
    /** Slots taken over from an owner found gone (fast failover), before their lease ran out. */
    int fastTakeovers;

    SimDatabase(Sim sim) {
        this.sim = sim;
    }

    void faults(Faults faults) {
        this.faults = faults;
    }

    /** The server's clock, which only a clock jump moves apart from the world's. */
    long serverNowMs() {
        return sim.now() / Sim.MS + serverOffsetMs;
    }

    void jumpServerClock(long ms) {
        serverOffsetMs += ms;
        sim.note("db: server clock jumps " + ms + " ms");
    }

    /** The latest time a delayed copy already sent may still arrive. */
    long lastLateDelivery() {
        return lastLateDelivery;
    }

    boolean hasPrimary() {
        return sim.now() >= noPrimaryUntil;
    }

    /** When the election under way (if any) ends. */
    long noPrimaryUntil() {
        return noPrimaryUntil;
    }

    /** A read with read concern majority: it sees only committed state, or fails. */
    <T> T read(String what, Supplier<T> read) {
        if (!hasPrimary() || sim.chance(faults.failedRead())) {
            throw new Unavailable("read " + what + " timed out");
        }
        return read.get();
    }

    /** A write request: delivered now, later, twice or never, and confirmed or not. */
    <T> T write(String what, Supplier<T> apply) {
        return write(what, apply, true);
    }

    /**
     * A write that its caller never sends twice (an insert nobody retries): the network may delay it or
     * lose it, but delivers it once at most, as TCP and the driver's retryable writes do.
     */
    <T> T writeOnce(String what, Supplier<T> apply) {
        return write(what, apply, false);
    }

    private <T> T write(String what, Supplier<T> apply, boolean mayRepeat) {
        if (!hasPrimary()) {
            throw new Unavailable("no primary for " + what);
        }
        Fault fault = drawFault();
        if (fault == Fault.DUPLICATE && !mayRepeat) {
            fault = Fault.NONE;
        }
        switch (fault) {
            case LOST_REQUEST -> {
                sim.note("db: request lost: " + what);
                throw new Unavailable(what + " timed out");
            }
            case LOST_REPLY -> {
                apply.get();
                sim.note("db: reply lost: " + what);
                throw new Unavailable(what + " timed out");
            }
            case UNCONFIRMED -> {
                apply.get();
                sim.note("db: applied, not confirmed: " + what);
                throw new Unconfirmed(what + " not confirmed by a majority");
            }
            case DELAYED -> {
                deliverLate(what, apply);
                throw new Unavailable(what + " timed out");
            }
            case DUPLICATE -> {
                T result = apply.get();
                commit();
                deliverLate(what, apply);
                return result;
            }
            default -> {
                T result = apply.get();
                commit();
                return result;
            }
        }
    }

    private Fault drawFault() {
        double r = sim.random.nextDouble();
        if ((r -= faults.lostRequest()) < 0) {
            return Fault.LOST_REQUEST;
        }
        if ((r -= faults.lostReply()) < 0) {
            return Fault.LOST_REPLY;
        }
        if ((r -= faults.delayed()) < 0) {
            return Fault.DELAYED;
        }
        if ((r -= faults.duplicate()) < 0) {
            return Fault.DUPLICATE;
        }
        if ((r -= faults.unconfirmed()) < 0) {
            return Fault.UNCONFIRMED;
        }
        return Fault.NONE;
    }

    private <T> void deliverLate(String what, Supplier<T> apply) {
        long at = sim.now() + sim.between(Sim.MS, faults.maxDelayNanos());
        lastLateDelivery = Math.max(lastLateDelivery, at);
        sim.at(at, () -> {
            if (hasPrimary()) {
                lateDeliveries++;
                sim.note("db: late copy arrives: " + what);
                apply.get();
            }
        });
    }

    void touchSlot(String id) {
        dirtySlots.add(id);
    }

    void touchRobot(String id) {
        dirtyRobots.add(id);
    }

    /** Everything applied so far reached a majority. */
    void commit() {
        for (String id : dirtySlots) {
            SlotDoc doc = slots.get(id);
            if (doc == null) {
                committedSlots.remove(id);
            } else {
                committedSlots.put(id, doc.copy());
            }
        }
        for (String id : dirtyRobots) {
            RobotDoc doc = robots.get(id);
            if (doc == null) {
                committedRobots.remove(id);
            } else {
                committedRobots.put(id, doc.copy());
            }
        }
        dirtySlots.clear();
        dirtyRobots.clear();
    }

    /** The primary steps down: what no majority had is rolled back, and nobody can write for a while. */
    void failover(long electionNanos) {
        int lost = dirtySlots.size() + dirtyRobots.size();
        for (String id : dirtySlots) {
            SlotDoc doc = committedSlots.get(id);
            if (doc == null) {
                slots.remove(id);
            } else {
                slots.put(id, doc.copy());
            }
        }
        for (String id : dirtyRobots) {
            RobotDoc doc = committedRobots.get(id);
            if (doc == null) {
                robots.remove(id);
            } else {
                robots.put(id, doc.copy());
            }
        }
        dirtySlots.clear();
        dirtyRobots.clear();
        rollbacks += lost;
        noPrimaryUntil = sim.now() + electionNanos;
        sim.note("db: failover, " + lost + " unconfirmed document(s) rolled back, no primary for " + electionNanos / Sim.MS + " ms");
    }
}
