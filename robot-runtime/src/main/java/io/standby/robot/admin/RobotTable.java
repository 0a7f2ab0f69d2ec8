package io.standby.robot.admin;

import static io.standby.robot.model.RobotFields.*;

import com.mongodb.client.model.Filters;
import io.standby.robot.RobotFactory;
import io.standby.robot.internal.MongoRobotIds;
import io.standby.robot.internal.MongoRobotStore;
import io.standby.robot.internal.Placement;
import io.standby.robot.internal.RobotApiAccess;
import io.standby.robot.internal.RobotDocuments;
import io.standby.robot.internal.RobotIdRules;
import io.standby.robot.internal.RobotIds;
import io.standby.robot.internal.RobotRules;
import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.robot.model.Runnability;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * What an operator does to robots: add, move, stop, start, remove, list and rebalance them, and release a slot by
 * force. Every change is one conditional update, so it is safe while nodes run; the owner of the robot's slot applies
 * it within one poll, and is told at once ({@link SlotTable#tellOwner}). Each change also stamps {@code request} with
 * the robot's slot, which is what a node's change stream watches for. The documents of every change are
 * {@link RobotRules}'s, sent through the store; moving a robot nobody runs is the runtime's own hand-over.
 */
public final class RobotTable {

    private static final Pattern ID_FORMAT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    private static final Comparator<RobotView> ORDER =
            Comparator.comparing(RobotView::slotId, SlotTable.ID_ORDER).thenComparing(RobotView::id);

    /** How a move went. */
    public enum MoveResult {
        /** The robot was not running: it now belongs to the new slot. */
        MOVED,
        /** The robot is running: its runner stops it (with a final checkpoint) and hands it over. */
        REQUESTED,
        /** The robot was already in that slot. */
        ALREADY_THERE
    }

    /** How a removal went. */
    public enum RemoveResult {
        /** Nobody ran the robot: its document is gone. */
        REMOVED,
        /**
         * A node runs it: that node stops it and deletes the document within a poll (or its slot's next owner does).
         */
        REQUESTED
    }

    /** One move of a rebalance: robot {@code robotId} from slot {@code from} to slot {@code to}. */
    public record Move(String robotId, String from, String to, double weight) {}

    /** A robot to add; {@code slotId} null means the least-loaded live slot. */
    public record NewRobot(String id, String type, String slotId, int priority, double weight, Document config) {}

    static {
        RobotApiAccess.register(RobotTable::new);
    }

    private final RobotDocuments robots;
    private final RobotIds ids;
    private final SlotTable slots;

    public RobotTable(StandbyDatabase database) {
        this(new MongoRobotStore(database), new MongoRobotIds(database), new SlotTable(database));
    }

    /**
     * Over any store of robots, id registry and slots, through {@link RobotApiAccess}: the simulation drives this very
     * table.
     */
    RobotTable(RobotDocuments robots, RobotIds ids, SlotTable slots) {
        this.robots = robots;
        this.ids = ids;
        this.slots = slots;
    }

    /**
     * Refuses a configuration that a type of {@code local} (this process's own types, the built-in ones say) does not
     * accept: its factory's own check, so that a bad configuration is refused when the robot is added rather than
     * failing on a node later. A type not in {@code local} is checked where it runs.
     *
     * @throws IllegalArgumentException with the factory's complaint
     */
    public static void validateConfig(String type, Document config, RobotTypes local) {
        Optional<RobotFactory> factory = local.get(type);
        if (factory.isPresent()) {
            try {
                factory.get().validate(config);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid config for a " + type + " robot: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Refuses a type that no node could run: one neither in {@code local} nor announced by a live node of {@code nodes}
     * (each node lists its types, built-in and from plugins, in the registry).
     *
     * @throws IllegalArgumentException naming the type and the known ones
     */
    public static void requireRunnableType(String type, RobotTypes local, NodeTable nodes) {
        if (local.get(type).isPresent()) {
            return;
        }
        SortedSet<String> known = new TreeSet<>(local.names());
        nodes.list().stream().filter(node -> !node.offline()).forEach(node -> known.addAll(node.types()));
        if (!known.contains(type)) {
            throw new IllegalArgumentException("unknown robot type '" + type
                    + "': neither built in nor known to a live node" + " (known: " + String.join(", ", known) + ")");
        }
    }

    /**
     * Adds a robot, pending until the owner of its slot starts it. One id is one robot in the whole cluster, however
     * {@code robots} is sharded: the add first reserves the id in the registry ({@link RobotIds}, whose {@code _id} is
     * unique cluster-wide), then inserts the robot {@code desired: adding} (no node starts it), then binds the id to
     * that incarnation, and only then wants the robot running. An add whose reservation was taken over as stale fails
     * its bind and deletes its robot, which never started.
     *
     * @param capacity with automatic placement, the most weight a slot may carry
     * @throws IllegalArgumentException naming the bad value: a malformed id or type, a weight that is not positive, an
     *     unknown slot, an id that exists or is being added, no slot with room
     */
    public RobotView add(NewRobot robot, OptionalDouble capacity) {
        Objects.requireNonNull(robot.config(), "config");
        if (robot.id() == null || !ID_FORMAT.matcher(robot.id()).matches()) {
            throw new IllegalArgumentException(
                    "invalid robot id '" + robot.id() + "': use letters, digits, '.', '_', ':' or '-' (at most 128)");
        }
        if (robot.type() == null || !ID_FORMAT.matcher(robot.type()).matches()) {
            throw new IllegalArgumentException("invalid robot type '" + robot.type() + "'");
        }
        if (!(robot.weight() > 0) || Double.isInfinite(robot.weight())) {
            throw new IllegalArgumentException("invalid weight " + robot.weight() + ": must be more than 0");
        }
        String incarnation = reserve(robot.id());
        try {
            // Held in the registry, so no other add of the id is past here: a robot of the id that exists now is
            // one from before the registry, or one a stale add left (whose id this add took over).
            refuseExisting(robot.id(), stored(robot.id()));
            String slotId = robot.slotId() != null ? requireSlot(robot.slotId()) : placeAutomatically(robot, capacity);
            if (!robots.insert(RobotCodec.adding(
                    robot.id(), incarnation, robot.type(), slotId, robot.priority(), robot.weight(), robot.config()))) {
                throw new IllegalArgumentException("robot '" + robot.id() + "' already exists");
            }
            if (!ids.bind(robot.id(), incarnation)) {
                // Taken over as stale: the id may be another add's now, so this robot must never start.
                robots.deleteAdding(robot.id(), incarnation);
                throw new IllegalArgumentException("robot '" + robot.id() + "' was not added: the add took longer than "
                        + RobotIdRules.RESERVATION.toSeconds() + " s and another add took its id over; try again");
            }
            if (robots.update(RobotRules.added(robot.id(), incarnation, slotId)) != 1) {
                throw new IllegalArgumentException(
                        "robot '" + robot.id() + "' was removed while it was being added; nothing runs");
            }
            slots.tellOwner(slotId);
        } catch (RuntimeException e) {
            // Gives the id back unless it is bound: a bound entry goes only with its robot, or lazily once stale.
            ids.release(new RobotIds.Entry(robot.id(), incarnation, RobotIds.State.RESERVING));
            throw e;
        }
        return get(robot.id()).orElseThrow();
    }

    /**
     * Holds the id in the registry for a new incarnation, taking over an entry found stale: one bound to a robot whose
     * document is gone (a deletion is final: an incarnation never comes back), or a reservation older than
     * {@link RobotIdRules#RESERVATION} by the server's clock. Each takeover is a compare-and-set on the entry as read,
     * so of two adds that read the same stale entry one takes it.
     *
     * @return the incarnation the id is reserved for
     */
    private String reserve(String id) {
        String incarnation = ids.newIncarnation();
        for (int attempt = 0; attempt < 10; attempt++) {
            if (ids.reserve(id, incarnation)) {
                return incarnation;
            }
            Optional<RobotIds.Entry> entry = ids.get(id);
            if (entry.isEmpty()) {
                continue; // Released between the insert and the read: try again.
            }
            RobotIds.Entry stale = entry.get();
            if (stale.state() == RobotIds.State.BOUND) {
                List<Document> existing = stored(id);
                Optional<Document> bound = existing.stream()
                        .filter(doc -> stale.incarnation().equals(doc.get(INCARNATION)))
                        .findFirst();
                if (bound.isPresent()) {
                    refuseExisting(id, List.of(bound.get()));
                }
                if (ids.takeOver(stale, incarnation)) {
                    return incarnation;
                }
            } else if (ids.takeOver(stale, incarnation)) {
                // The stale add's robot, if it was inserted, must never start: its own bind now fails too.
                robots.deleteAdding(id, stale.incarnation());
                return incarnation;
            } else if (ids.get(id).equals(entry)) {
                throw new IllegalArgumentException("robot '" + id + "' is being added; try again");
            }
            // The entry changed between the read and the takeover: read again.
        }
        throw new IllegalStateException("robot '" + id + "' keeps changing; try again");
    }

    /** Refuses the id if a robot of it is stored. */
    private static void refuseExisting(String id, List<Document> existing) {
        for (Document doc : existing) {
            RobotView found = RobotCodec.parse(doc);
            String slot = found != null ? found.slotId() : String.valueOf(doc.get(SLOT));
            if (found != null && found.desired() == Desired.REMOVED) {
                throw new IllegalArgumentException("robot '" + id + "' is still being removed from " + slot
                        + " (its node stops it first); try again");
            }
            if (found != null && found.desired() == Desired.ADDING) {
                throw new IllegalArgumentException("robot '" + id + "' in " + slot
                        + " is left from an add that did not finish; 'robot rm' deletes it");
            }
            throw new IllegalArgumentException("robot '" + id + "' already exists (in " + slot + ")");
        }
    }

    private String placeAutomatically(NewRobot robot, OptionalDouble capacity) {
        Map<String, Double> loads = Placement.loads(candidateSlots(), load(list(null)));
        return Placement.choose(robot.id(), robot.weight(), loads, capacity)
                .orElseThrow(() -> new IllegalArgumentException(
                        loads.isEmpty()
                                ? SlotTable.NO_SLOTS
                                : "no slot has room for weight " + robot.weight() + " under capacity "
                                        + capacity.getAsDouble()));
    }

    /**
     * Slots a robot may be placed on: the live ones, or every slot while none is live, so an add never fails for want
     * of a live node.
     */
    private List<String> candidateSlots() {
        List<SlotView> all = slots.list();
        List<String> live = all.stream()
                .filter(s -> s.state() == SlotState.OWNED)
                .map(SlotView::id)
                .toList();
        return live.isEmpty() ? all.stream().map(SlotView::id).toList() : live;
    }

    /** Robots that count towards a slot's load: the wanted ones, counted where they are going. */
    private static List<Placement.Item> load(List<RobotView> robots) {
        return robots.stream()
                .filter(Runnability::wanted)
                .map(r -> new Placement.Item(r.id(), r.moving() ? r.target() : r.slotId(), r.weight()))
                .toList();
    }

    private String requireSlot(String slotId) {
        if (slots.get(slotId).isEmpty()) {
            List<SlotView> all = slots.list();
            throw new IllegalArgumentException("unknown slot '" + slotId + "'"
                    + (all.isEmpty()
                            ? ": " + SlotTable.NO_SLOTS
                            : " (slots: " + all.getFirst().id() + " .. "
                                    + all.getLast().id() + ")"));
        }
        return slotId;
    }

    public Optional<RobotView> get(String id) {
        return document(id).map(RobotCodec::parse);
    }

    /** The robot's document exactly as stored, every field included. */
    public Optional<Document> document(String id) {
        return robots.find(Filters.eq(ID, id), List.of(), 1).stream().findFirst();
    }

    /** Every stored document of the id: more than one only on a sharded {@code robots} written around the registry. */
    private List<Document> stored(String id) {
        return robots.find(Filters.eq(ID, id), List.of(), 0);
    }

    private RobotView require(String id) {
        return get(id).orElseThrow(() -> new IllegalArgumentException("unknown robot '" + id + "'"));
    }

    /** Robots of one slot, or all, by slot then id. @throws IllegalArgumentException for an unknown slot */
    public List<RobotView> list(String slotId) {
        Bson filter = slotId == null ? new Document() : Filters.eq(SLOT, requireSlot(slotId));
        List<RobotView> list = new ArrayList<>();
        for (Document doc : robots.find(filter, List.of(), 0)) {
            RobotView robot = RobotCodec.parse(doc);
            if (robot != null) {
                list.add(robot);
            }
        }
        list.sort(ORDER);
        return list;
    }

    /**
     * How many robots each slot has in each state, counted by the database: one short reply however many robots there
     * are, where {@link #list} would carry every context.
     */
    public Map<String, Map<RobotState, Long>> countsBySlot() {
        Map<String, Map<RobotState, Long>> counts = new TreeMap<>(SlotTable.ID_ORDER);
        for (Document group : robots.countBySlotAndState()) {
            Document key = group.get("_id", Document.class);
            RobotState state = RobotCodec.state(key.getString("state"));
            if (key.getString("slot") != null && state != null) {
                counts.computeIfAbsent(key.getString("slot"), k -> new EnumMap<>(RobotState.class))
                        .merge(state, ((Number) group.get("n")).longValue(), Long::sum);
            }
        }
        return counts;
    }

    /**
     * Up to {@code limit} robots (the first by id), by slot then id, without their config and context: what a dashboard
     * lists of every robot, at a cost bounded by {@code limit} whatever their contexts weigh.
     */
    public List<RobotView> summaries(int limit) {
        List<RobotView> list = new ArrayList<>();
        for (Document doc : robots.find(new Document(), List.of(CONFIG, CONTEXT), limit)) {
            RobotView robot = RobotCodec.parse(doc);
            if (robot != null) {
                list.add(robot);
            }
        }
        list.sort(ORDER);
        return list;
    }

    /** Up to {@code limit} robots not RUNNING, by slot then id, without their config and context. */
    public List<RobotView> notRunning(int limit) {
        List<RobotView> list = new ArrayList<>();
        for (Document doc :
                robots.find(Filters.ne(STATE, RobotState.RUNNING.name()), List.of(CONFIG, CONTEXT), limit)) {
            RobotView robot = RobotCodec.parse(doc);
            if (robot != null) {
                list.add(robot);
            }
        }
        list.sort(ORDER);
        return list;
    }

    /**
     * Moves a robot to another slot without ever letting two nodes run it: a robot nobody runs is moved at once; a
     * running one gets {@code target} set, and its runner stops it with a final checkpoint and hands it over, after
     * which the new slot's owner starts it.
     *
     * @throws IllegalArgumentException for an unknown robot or slot
     */
    public MoveResult move(String id, String slotId) {
        requireSlot(slotId);
        for (int attempt = 0; attempt < 10; attempt++) {
            RobotView robot = require(id);
            requireNotRemoved(robot);
            if (robot.slotId().equals(slotId)) {
                if (robot.target() != null) {
                    robots.update(RobotRules.cancelMove(robot));
                    slots.tellOwner(slotId);
                }
                return MoveResult.ALREADY_THERE;
            }
            if (robot.node() == null) {
                // Nobody runs it: the hand-over a runner makes, which tells the new slot's owner.
                if (robots.handOver(RobotRules.idleHandOver(robot, slotId))) {
                    return MoveResult.MOVED;
                }
            } else if (robots.update(RobotRules.requestMove(robot, slotId)) == 1) {
                slots.tellOwner(robot.slotId());
                return MoveResult.REQUESTED;
            }
            // It changed between the read and the write: read again.
        }
        throw new IllegalStateException("robot '" + id + "' keeps changing; try again");
    }

    /** Asks for a robot to stop; its runner lets it checkpoint first. @throws IllegalArgumentException if unknown */
    public void stop(String id) {
        RobotView robot = require(id);
        requireNotRemoved(robot);
        // Nobody runs it: it is stopped now. Otherwise the runner stops it and records STOPPED.
        if (robots.update(RobotRules.stopIdle(robot)) == 0) {
            robots.update(RobotRules.requestStop(robot));
        }
        slots.tellOwner(robot.slotId());
    }

    /** Wants a robot running again; a FAILED one is cleared and retried. @throws IllegalArgumentException if unknown */
    public void start(String id) {
        RobotView robot = require(id);
        requireNotRemoved(robot);
        robots.update(RobotRules.clearFailure(robot));
        robots.update(RobotRules.wantRunning(robot));
        slots.tellOwner(robot.slotId());
    }

    /**
     * Removes a robot and its context. A robot nobody runs is deleted at once. A running one is marked {@code desired:
     * removed}: its node interrupts it within a poll and then deletes the document, and until then the id cannot be
     * added again, so the old run never overlaps with a new robot of the same id, on any node. If that node is gone,
     * the slot's next owner deletes it when it takes over.
     *
     * @throws IllegalArgumentException if unknown
     */
    public RemoveResult remove(String id) {
        for (int attempt = 0; attempt < 10; attempt++) {
            RobotView robot = require(id);
            if (robot.node() == null) {
                // Nobody runs it: a runner must take it (set node) before starting it, so this cannot race one.
                if (robots.deleteIdle(robot)) {
                    releaseId(robot);
                    return RemoveResult.REMOVED;
                }
            } else if (robot.desired() == Desired.REMOVED || robots.update(RobotRules.requestRemoval(robot)) == 1) {
                slots.tellOwner(robot.slotId());
                return RemoveResult.REQUESTED;
            }
            // It changed between the read and the write: read again.
        }
        throw new IllegalStateException("robot '" + id + "' keeps changing; try again");
    }

    /**
     * Deletes the removed robot's registry entry, best effort: the robot is gone whatever happens here, and an entry
     * left bound to a robot that is gone is stale, which the next add of the id sees and takes over.
     */
    private void releaseId(RobotView removed) {
        try {
            ids.release(new RobotIds.Entry(removed.id(), removed.incarnation(), RobotIds.State.BOUND));
        } catch (RuntimeException e) {
            // Left stale: the next add of the id takes it over.
        }
    }

    /**
     * Releases a slot by force while its owner may still be running robots: the slot's owner is cleared and its epoch
     * raised (see {@link SlotTable#forceRelease}), and then its robots are fenced at that epoch, so no write of the
     * former owner under the tokens it held is accepted once this returns. (A robot that arrives in the slot
     * afterwards, by a move's hand-over, may still be taken by the former owner until it notices, under a token of its
     * own; no other node can run it before the lease runs out.) The robots keep their {@code node}: the former owner
     * may still be running them until it notices (at its next renewal or write, within a heartbeat), so they move or go
     * only through the handshake, and the slot's next owner, which can claim it only once the lease has run out, takes
     * them over.
     *
     * @return the slot as it was before, if it had an owner; empty if it was already free
     * @throws IllegalArgumentException if there is no such slot
     */
    public Optional<SlotView> forceRelease(String slotId) {
        Optional<SlotView> before = slots.forceRelease(slotId);
        before.ifPresent(slot -> {
            long epoch = SlotTable.epochAfterForcedRelease(slot);
            robots.revoke(slotId, epoch);
        });
        return before;
    }

    /** A robot being removed, or still being added (only its add makes it wanted), is left alone. */
    private static void requireNotRemoved(RobotView robot) {
        if (robot.desired() == Desired.REMOVED) {
            throw new IllegalArgumentException("robot '" + robot.id() + "' is being removed");
        }
        if (robot.desired() == Desired.ADDING) {
            throw new IllegalArgumentException("robot '" + robot.id() + "' is being added; try again");
        }
    }

    /**
     * The fewest moves (largest robots first) that even out the weight on the live slots, each applied with
     * {@link #move}; the moves made.
     */
    public List<Move> rebalance(OptionalDouble capacity) {
        List<Move> plan = planRebalance(capacity);
        plan.forEach(m -> move(m.robotId(), m.to()));
        return plan;
    }

    /** The moves {@link #rebalance} would make now, without making them. */
    public List<Move> planRebalance(OptionalDouble capacity) {
        List<Placement.Item> items = load(list(null));
        return Placement.rebalance(Placement.loads(candidateSlots(), items), items, capacity).stream()
                .map(m -> new Move(m.robotId(), m.from(), m.to(), m.weight()))
                .toList();
    }
}
