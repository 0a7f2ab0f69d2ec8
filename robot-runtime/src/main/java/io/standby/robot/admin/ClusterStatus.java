package io.standby.robot.admin;

import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.Document;

/**
 * The whole cluster at one reading: who owns which slot, which nodes own or stand by, how many robots are in each state
 * and which are not running, and what happened lately. What {@code standby status} and a node's {@code /status} and
 * dashboard show.
 *
 * <p>Four or five short reads, whatever the number of robots: robots are counted by the database, and only those not
 * running are read (without config or context), at most {@link #NOT_RUNNING_SHOWN}.
 *
 * @param time when it was read, by the reader's clock
 * @param robotsBySlot how many robots each slot has in each state
 * @param notRunning robots not RUNNING, with their error, at most {@link #NOT_RUNNING_SHOWN}
 * @param events the newest events, newest first (empty unless asked for)
 * @param listed every robot up to a limit, by slot then id, without config and context, for the dashboard's list; null
 *     unless asked for
 */
public record ClusterStatus(
        Instant time,
        List<SlotView> slots,
        List<NodeView> nodes,
        Map<String, Map<RobotState, Long>> robotsBySlot,
        List<RobotView> notRunning,
        List<EventView> events,
        List<RobotView> listed) {

    /** How many robots that are not running a reading lists (it counts them all). */
    public static final int NOT_RUNNING_SHOWN = 100;

    /** Reads the cluster, with the newest {@code recentEvents} events (none if 0). */
    public static ClusterStatus read(StandbyDatabase db, int recentEvents) {
        return read(db, recentEvents, 0);
    }

    /**
     * Reads the cluster, with the newest {@code recentEvents} events (none if 0) and, if {@code listed} is more than 0,
     * that many robots at most (one more short read, without configs and contexts).
     */
    public static ClusterStatus read(StandbyDatabase db, int recentEvents, int listed) {
        RobotTable robots = new RobotTable(db);
        return new ClusterStatus(
                Instant.now(),
                new SlotTable(db).list(),
                new NodeTable(db).list(),
                robots.countsBySlot(),
                robots.notRunning(NOT_RUNNING_SHOWN),
                recentEvents > 0 ? new EventTable(db).recent(recentEvents) : List.of(),
                listed > 0 ? robots.summaries(listed) : null);
    }

    /** How many robots there are in each state, over all slots. */
    public Map<RobotState, Long> robotsByState() {
        Map<RobotState, Long> total = new EnumMap<>(RobotState.class);
        robotsBySlot.values().forEach(counts -> counts.forEach((state, n) -> total.merge(state, n, Long::sum)));
        return total;
    }

    public long robots() {
        return robotsByState().values().stream().mapToLong(Long::longValue).sum();
    }

    public long running() {
        return robotsByState().getOrDefault(RobotState.RUNNING, 0L);
    }

    /** Each slot's owner as text ("null" when free), to tell a change of owner between two readings. */
    public Map<String, String> owners() {
        Map<String, String> owners = new HashMap<>();
        slots.forEach(slot -> owners.put(slot.id(), String.valueOf(slot.owner())));
        return owners;
    }

    /**
     * A node's part by the slot table, the truth, rather than by its last report (written at a low rate): OWNER if it
     * holds a slot whose lease runs, OFFLINE if it has not written for three intervals, otherwise DRAINING or STANDBY
     * as it said. A node that died shows as standing by until it goes offline, which is why every view of a node also
     * shows when it was last seen.
     */
    public String role(NodeView node) {
        if (node.offline()) {
            return "OFFLINE";
        }
        if (owning().contains(node.id())) {
            return NodeState.OWNER.name();
        }
        return node.state() == NodeState.DRAINING ? NodeState.DRAINING.name() : NodeState.STANDBY.name();
    }

    private Set<NodeId> owning() {
        return slots.stream()
                .filter(slot -> slot.owner() != null && !slot.expired())
                .map(SlotView::owner)
                .collect(Collectors.toSet());
    }

    /** As JSON for scripts and the dashboard: durations in ms, times in ISO-8601, states by name. */
    public Document toDocument() {
        List<Document> slotDocs = slots.stream()
                .map(slot -> {
                    Document robotsDoc = new Document();
                    robotsBySlot
                            .getOrDefault(slot.id(), Map.of())
                            .forEach((state, n) -> robotsDoc.append(state.name(), n));
                    return new Document("id", slot.id())
                            .append(
                                    "owner",
                                    slot.owner() == null ? null : slot.owner().toString())
                            .append("state", slot.state().name().toLowerCase())
                            .append("epoch", slot.epoch())
                            .append(
                                    "heartbeatAgeMs",
                                    slot.released() ? null : slot.age().toMillis())
                            .append("leaseMs", slot.lease().toMillis())
                            .append("robots", robotsDoc);
                })
                .toList();
        List<Document> nodeDocs = nodes.stream()
                .map(node -> new Document("id", node.id().toString())
                        .append("state", role(node))
                        .append("slots", node.slots())
                        .append("load", node.load())
                        .append("cpu", node.cpu())
                        .append("memory", node.memory())
                        .append("robotsRunning", node.robotsRunning())
                        .append("robotsFailed", node.robotsFailed())
                        .append("seenAgoMs", node.age().toMillis())
                        .append("version", node.version()))
                .toList();
        Document byState = new Document();
        robotsByState().forEach((state, n) -> byState.append(state.name(), n));
        List<Document> notRunningDocs = notRunning.stream()
                .map(r -> new Document("id", r.id())
                        .append("slot", r.slotId())
                        .append("state", r.state().name())
                        .append("desired", r.desired().value())
                        .append("lastError", r.lastError()))
                .toList();
        List<Document> eventDocs = events.stream()
                .map(e -> new Document("time", e.time().toString())
                        .append("type", e.type())
                        .append("slot", e.slot())
                        .append("epoch", e.epoch())
                        .append("node", e.node())
                        .append("robot", e.robot())
                        .append("from", e.from())
                        .append("gapMs", e.unowned().map(gap -> gap.toMillis()).orElse(null))
                        .append("reason", e.reason())
                        .append("error", e.error())
                        .append("to", e.to())
                        .append("how", e.how())
                        .append("evidence", e.evidence()))
                .toList();
        Document robotsDoc = new Document("total", robots())
                .append("running", running())
                .append("byState", byState)
                .append("notRunning", notRunningDocs);
        if (listed != null) {
            // The names of 'robot list -o json', less what the read left out.
            robotsDoc.append(
                    "list",
                    listed.stream()
                            .map(r -> {
                                Document doc = r.toDocument();
                                doc.remove("config");
                                doc.remove("context");
                                return doc;
                            })
                            .toList());
        }
        return new Document("time", time.toString())
                .append("slots", slotDocs)
                .append("nodes", nodeDocs)
                .append("robots", robotsDoc)
                .append("events", eventDocs);
    }
}
