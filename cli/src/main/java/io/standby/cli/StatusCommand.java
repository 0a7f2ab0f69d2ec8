package io.standby.cli;

import io.standby.robot.admin.ClusterStatus;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.Durations;
import io.standby.slot.NodeView;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code standby status}: who owns what, who stands by, and whether everything runs, on one screen; {@code --watch}
 * redraws it until Ctrl-C and marks slots whose owner changed.
 */
@Command(
        name = "status",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby status",
            "  standby status --watch",
            "  standby status -o json | jq '.slots[] | select(.owner == null)'",
            "  standby status -o yaml"
        },
        description = {
            "Shows who owns which slot, who stands by, and every robot that is not running, with its error.",
            "Slots show their owner, epoch, heartbeat age against the lease (by the database's clock) and their robots "
                    + "by state. --watch redraws every --interval until Ctrl-C and marks a slot whose owner changed "
                    + "with '*'."
        })
final class StatusCommand extends AdminCommand {

    private static final String CLEAR = "\033[H\033[2J";
    private static final String BOLD = "\033[1m";
    private static final String PLAIN = "\033[0m";

    @Option(names = "--watch", description = "Redraw until Ctrl-C.")
    boolean watch;

    @Option(
            names = "--interval",
            paramLabel = "DURATION",
            defaultValue = "1s",
            converter = DurationConverter.class,
            description = "With --watch, how often to redraw (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--json", description = "One snapshot as JSON, for scripts; the same as -o json.")
    boolean json;

    @Mixin
    ObjectOutput output;

    @Override
    public Integer call() throws InterruptedException {
        output.alias(json);
        if (watch && output.structured()) {
            throw Flags.invalid("--watch and "
                    + (json ? "--json" : "-o " + output.format.name().toLowerCase(Locale.ROOT))
                    + " do not go together: it is one snapshot");
        }
        if (interval.compareTo(Duration.ofMillis(100)) < 0) {
            throw Flags.invalid("invalid --interval " + Durations.format(interval) + ": must be at least 100ms");
        }
        try (StandbyDatabase db = connect()) {
            PrintWriter out = out();
            if (output.print(out, ClusterStatus.read(db, 0).toDocument())) {
                return 0;
            }
            if (!watch) {
                Screen.print(ClusterStatus.read(db, 0), out, Map.of(), Screen.Style.TEXT);
                out.flush();
                return 0;
            }
            boolean terminal = System.console() != null;
            Map<String, String> owners = new HashMap<>();
            while (!Thread.currentThread().isInterrupted()) {
                ClusterStatus snapshot;
                try {
                    snapshot = ClusterStatus.read(db, 0);
                } catch (RuntimeException e) {
                    out.println(LocalTime.now().withNano(0) + "  cannot read the cluster: " + e.getMessage());
                    out.flush();
                    Thread.sleep(interval.toMillis());
                    continue;
                }
                if (terminal) {
                    out.print(CLEAR);
                }
                out.println("standby status, "
                        + LocalTime.now(ZoneId.systemDefault()).format(DateTimeFormatter.ofPattern("HH:mm:ss"))
                        + " (every " + Durations.format(interval) + ", Ctrl-C to stop)");
                Screen.print(snapshot, out, owners, terminal ? Screen.Style.ANSI : Screen.Style.TEXT);
                out.println();
                out.flush();
                owners = snapshot.owners();
                Thread.sleep(interval.toMillis());
            }
            return 0;
        }
    }

    /** How {@code standby status} prints one reading of the cluster. */
    static final class Screen {

        /** How a changed slot's mark shows: as text alone, or in bold on a terminal that reads ANSI codes. */
        enum Style {
            TEXT,
            ANSI
        }

        private Screen() {}

        /** @param before the owners at the previous frame (empty at the first): a slot whose owner changed is marked */
        static void print(ClusterStatus status, PrintWriter out, Map<String, String> before, Style style) {
            if (status.slots().isEmpty()) {
                out.println("No slots. Create them with: standby slots init --count 3");
            } else {
                Table table = new Table("", "SLOT", "OWNER", "EPOCH", "HEARTBEAT", "LEASE", "ROBOTS");
                for (SlotView slot : status.slots()) {
                    boolean changed = before.containsKey(slot.id())
                            && !before.get(slot.id()).equals(String.valueOf(slot.owner()));
                    table.row(
                            changed ? "*" : "",
                            slot.id(),
                            slot.owner() == null ? slot.state().name().toLowerCase() : slot.owner(),
                            slot.epoch(),
                            slot.released()
                                    ? null
                                    : Durations.approximately(slot.age()) + (slot.expired() ? " (expired)" : ""),
                            slot.lease().isZero() ? null : Durations.format(slot.lease()),
                            counts(status.robotsBySlot().get(slot.id())));
                }
                StringWriter buffer = new StringWriter();
                table.print(new PrintWriter(buffer, true));
                buffer.toString()
                        .lines()
                        .forEach(line ->
                                out.println(style == Style.ANSI && line.startsWith("*") ? BOLD + line + PLAIN : line));
            }
            out.println();
            printNodes(status, out);
            out.println();
            long total = status.robots();
            long notRunning = total - status.running();
            if (total == 0) {
                out.println("No robots. Add one with: standby robot add ID --type counter");
            } else if (notRunning == 0) {
                out.println("All " + total + " robot(s) running.");
            } else {
                out.println("Not running (" + notRunning + " of " + total + "):");
                Table table = new Table("ROBOT", "SLOT", "STATE", "DESIRED", "LAST ERROR");
                for (RobotView robot : status.notRunning()) {
                    table.row(
                            robot.id(),
                            robot.slotId(),
                            robot.state().name(),
                            robot.desired().value(),
                            robot.lastError() == null
                                    ? null
                                    : Json.truncate(
                                            robot.lastError()
                                                    .lines()
                                                    .findFirst()
                                                    .orElse(""),
                                            60));
                }
                table.print(out);
                if (notRunning > status.notRunning().size()) {
                    out.println("(the first " + status.notRunning().size() + " shown)");
                }
            }
        }

        /** Each node's part from the slot table (see {@link ClusterStatus#role}), and when it was last seen. */
        private static void printNodes(ClusterStatus status, PrintWriter out) {
            if (status.nodes().isEmpty()) {
                out.println("Nodes: none in the registry.");
                return;
            }
            Map<String, List<String>> byRole = new TreeMap<>();
            for (NodeView node : status.nodes()) {
                String role = switch (status.role(node)) {
                    case "OFFLINE" -> "offline";
                    case "OWNER" -> "owning slots";
                    case "DRAINING" -> "draining";
                    default -> "standing by";
                };
                String seen = "seen " + Durations.approximately(node.age()) + " ago";
                byRole.computeIfAbsent(role, r -> new ArrayList<>())
                        .add(node.id()
                                + (node.offline() ? " (" + seen + ")" : " (load " + node.load() + ", " + seen + ")"));
            }
            out.println("Nodes: " + status.nodes().size());
            byRole.forEach((role, names) -> out.println("  " + role + ": " + String.join(", ", names)));
        }

        private static String counts(Map<RobotState, Long> counts) {
            if (counts == null || counts.isEmpty()) {
                return "none";
            }
            return counts.entrySet().stream()
                    .map(e -> e.getValue() + " " + e.getKey().name().toLowerCase())
                    .collect(Collectors.joining(", "));
        }
    }
}
