package io.standby.cli;

import io.standby.robot.admin.RobotState;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.admin.RobotView;
import io.standby.slot.Durations;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * {@code standby status}: who owns what, who stands by, and whether everything runs, on one screen;
 * {@code --watch} redraws it until Ctrl-C and marks slots whose owner changed.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        footerHeading = "%nExamples:%n", footer = {
            "  standby status",
            "  standby status --watch",
            "  standby status --json | jq '.slots[] | select(.owner == null)'"},
        description = {"Shows who owns which slot, who stands by, and every robot that is not running, with its error.",
            "Slots show their owner, epoch, heartbeat age against the lease (by the database's clock) and their robots "
                    + "by state. --watch redraws every --interval until Ctrl-C and marks a slot whose owner changed with '*'."})
final class StatusCommand extends AdminCommand {

    private static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).indent(true).build();
    private static final String CLEAR = "\033[H\033[2J";
    private static final String BOLD = "\033[1m";
    private static final String PLAIN = "\033[0m";

    @Option(names = "--watch", description = "Redraw until Ctrl-C.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "With --watch, how often to redraw (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--json", description = "One snapshot as JSON, for scripts.")
    boolean json;

    @Override
    public Integer call() throws InterruptedException {
        if (watch && json) {
            throw Flags.invalid("--watch and --json do not go together: --json prints one snapshot");
        }
        if (interval.compareTo(Duration.ofMillis(100)) < 0) {
            throw Flags.invalid("invalid --interval " + Durations.format(interval) + ": must be at least 100ms");
        }
        try (StandbyDatabase db = connect()) {
            PrintWriter out = out();
            if (json) {
                out.println(Snapshot.read(db).toDocument().toJson(JSON));
                out.flush();
                return 0;
            }
            if (!watch) {
                Snapshot.read(db).print(out, Map.of(), false);
                out.flush();
                return 0;
            }
            boolean terminal = System.console() != null;
            Map<String, String> owners = new HashMap<>();
            while (!Thread.currentThread().isInterrupted()) {
                Snapshot snapshot;
                try {
                    snapshot = Snapshot.read(db);
                } catch (RuntimeException e) {
                    out.println(LocalTime.now().withNano(0) + "  cannot read the cluster: " + e.getMessage());
                    out.flush();
                    Thread.sleep(interval.toMillis());
                    continue;
                }
                if (terminal) {
                    out.print(CLEAR);
                }
                out.println("standby status, " + LocalTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ofPattern("HH:mm:ss"))
                        + " (every " + Durations.format(interval) + ", Ctrl-C to stop)");
                snapshot.print(out, owners, terminal);
                out.println();
                out.flush();
                owners = snapshot.owners();
                Thread.sleep(interval.toMillis());
            }
            return 0;
        }
    }

    /** One reading of the slots, the nodes and the robots. */
    record Snapshot(List<SlotView> slots, List<NodeView> nodes, List<RobotView> robots) {

        static Snapshot read(StandbyDatabase db) {
            return new Snapshot(new SlotTable(db).list(), new NodeTable(db).list(), new RobotTable(db).list(null));
        }

        Map<String, String> owners() {
            Map<String, String> owners = new HashMap<>();
            slots.forEach(slot -> owners.put(slot.id(), String.valueOf(slot.owner())));
            return owners;
        }

        private Map<String, Map<RobotState, Long>> robotsBySlot() {
            return robots.stream().collect(Collectors.groupingBy(RobotView::slotId,
                    Collectors.groupingBy(RobotView::state, TreeMap::new, Collectors.counting())));
        }

        /**
         * @param before the owners at the previous frame (empty at the first): a slot whose owner changed is marked
         * @param ansi   whether to also show the mark in bold
         */
        void print(PrintWriter out, Map<String, String> before, boolean ansi) {
            if (slots.isEmpty()) {
                out.println("No slots. Create them with: standby slots init --count 3");
            } else {
                Map<String, Map<RobotState, Long>> bySlot = robotsBySlot();
                Table table = new Table("", "SLOT", "OWNER", "EPOCH", "HEARTBEAT", "LEASE", "ROBOTS");
                for (SlotView slot : slots) {
                    boolean changed = before.containsKey(slot.id()) && !before.get(slot.id()).equals(String.valueOf(slot.owner()));
                    table.row(changed ? "*" : "", slot.id(), slot.owner() == null ? slot.state().name().toLowerCase() : slot.owner(),
                            slot.epoch(), slot.released() ? null : Durations.approximately(slot.age()) + (slot.expired() ? " (expired)" : ""),
                            slot.lease().isZero() ? null : Durations.format(slot.lease()), counts(bySlot.get(slot.id())));
                }
                StringWriter buffer = new StringWriter();
                table.print(new PrintWriter(buffer, true));
                buffer.toString().lines().forEach(line -> out.println(ansi && line.startsWith("*") ? BOLD + line + PLAIN : line));
            }
            out.println();
            printNodes(out);
            List<RobotView> notRunning = robots.stream().filter(r -> r.state() != RobotState.RUNNING).toList();
            out.println();
            if (robots.isEmpty()) {
                out.println("No robots. Add one with: standby robot add ID --type counter");
            } else if (notRunning.isEmpty()) {
                out.println("All " + robots.size() + " robot(s) running.");
            } else {
                out.println("Not running (" + notRunning.size() + " of " + robots.size() + "):");
                Table table = new Table("ROBOT", "SLOT", "STATE", "DESIRED", "LAST ERROR");
                for (RobotView robot : notRunning) {
                    table.row(robot.id(), robot.slotId(), robot.state().name(), robot.desired().value(),
                            robot.lastError() == null ? null : Json.truncate(robot.lastError().lines().findFirst().orElse(""), 60));
                }
                table.print(out);
            }
        }

        /**
         * Each node's part from the slot table, the truth, rather than its last report: a node shown as owning
         * holds a slot whose lease runs; the others stand by (or drain). A node that died shows as standing by
         * until it goes offline, so every node shows when it was last seen.
         */
        private void printNodes(PrintWriter out) {
            if (nodes.isEmpty()) {
                out.println("Nodes: none in the registry.");
                return;
            }
            Map<NodeId, List<String>> owning = new HashMap<>();
            slots.stream().filter(slot -> slot.owner() != null && !slot.expired())
                    .forEach(slot -> owning.computeIfAbsent(slot.owner(), o -> new ArrayList<>()).add(slot.id()));
            Map<String, List<String>> byRole = new TreeMap<>();
            for (NodeView node : nodes) {
                String role = node.offline() ? "offline" : owning.containsKey(node.id()) ? "owning slots"
                        : node.state() == NodeState.DRAINING ? "draining" : "standing by";
                String seen = "seen " + Durations.approximately(node.age()) + " ago";
                byRole.computeIfAbsent(role, r -> new ArrayList<>())
                        .add(node.id() + (node.offline() ? " (" + seen + ")" : " (load " + node.load() + ", " + seen + ")"));
            }
            out.println("Nodes: " + nodes.size());
            byRole.forEach((role, names) -> out.println("  " + role + ": " + String.join(", ", names)));
        }

        private static String counts(Map<RobotState, Long> counts) {
            if (counts == null || counts.isEmpty()) {
                return "none";
            }
            return counts.entrySet().stream().map(e -> e.getValue() + " " + e.getKey().name().toLowerCase())
                    .collect(Collectors.joining(", "));
        }

        Document toDocument() {
            Map<String, Map<RobotState, Long>> bySlot = robotsBySlot();
            List<Document> slotDocs = slots.stream().map(slot -> {
                Document robotsDoc = new Document();
                bySlot.getOrDefault(slot.id(), Map.of()).forEach((state, n) -> robotsDoc.append(state.name(), n));
                return new Document("id", slot.id()).append("owner", slot.owner() == null ? null : slot.owner().toString())
                        .append("state", slot.state().name().toLowerCase()).append("epoch", slot.epoch())
                        .append("heartbeatAgeMs", slot.released() ? null : slot.age().toMillis())
                        .append("leaseMs", slot.lease().toMillis()).append("robots", robotsDoc);
            }).toList();
            List<Document> nodeDocs = nodes.stream().map(node -> new Document("id", node.id().toString())
                    .append("state", node.offline() ? "OFFLINE" : node.state().name()).append("slots", node.slots())
                    .append("load", node.load()).append("seenAgoMs", node.age().toMillis())).toList();
            List<Document> notRunning = robots.stream().filter(r -> r.state() != RobotState.RUNNING)
                    .map(r -> new Document("id", r.id()).append("slot", r.slotId()).append("state", r.state().name())
                            .append("desired", r.desired().value()).append("lastError", r.lastError())).toList();
            return new Document("time", Instant.now().toString()).append("slots", slotDocs).append("nodes", nodeDocs)
                    .append("robots", new Document("total", robots.size())
                            .append("running", robots.size() - notRunning.size()).append("notRunning", notRunning));
        }
    }
}
