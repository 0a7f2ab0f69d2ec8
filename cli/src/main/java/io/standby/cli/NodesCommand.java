package io.standby.cli;

import io.standby.slot.Durations;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code standby nodes}: every node in the registry, owners and standbys at a glance. */
@Command(
        name = "nodes",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby nodes",
            "  standby nodes -o wide",
            "  standby nodes -o json | jq -r '.[] | select(.offline) | .id'",
            "  standby nodes --mongo mongodb://db1,db2,db3/?replicaSet=rs0"
        },
        description = {
            "Lists the nodes: who owns which slots, who stands by, their robots, load and robot types.",
            "From the nodes registry, which every node writes every few heartbeats; a node not seen for three of "
                    + "its intervals shows as offline, and goes from the registry after 30 intervals (at least ten "
                    + "minutes)."
        })
final class NodesCommand extends AdminCommand {

    @Mixin
    ListOutput output;

    @Override
    public Integer call() {
        try (StandbyDatabase db = connect()) {
            List<NodeView> nodes = new NodeTable(db).list();
            if (nodes.isEmpty()) {
                output.printEmpty(out(), "No nodes. Start one with: standby node --ip IP --port PORT");
                return 0;
            }
            if (output.structured()) {
                output.print(out(), nodes.stream().map(NodesCommand::json).toList());
                return 0;
            }
            boolean wide = output.wide();
            List<String> header = new ArrayList<>(List.of(
                    "NODE", "STATE", "SLOTS", "ROBOTS", "FAILED", "LOAD", "CPU", "MEMORY", "VERSION", "UP", "SEEN",
                    "TYPES"));
            if (wide) {
                header.addAll(List.of("INSTANCE", "HOST", "STARTED", "INTERVAL"));
            }
            Table table = new Table(header.toArray(String[]::new));
            for (NodeView n : nodes) {
                List<Object> cells = new ArrayList<>(Arrays.asList(
                        n.id(),
                        state(n),
                        n.slots().isEmpty() ? "-" : String.join(",", n.slots()) + " (of " + n.maxSlots() + ")",
                        n.robotsRunning(),
                        n.robotsFailed(),
                        n.load(),
                        percent(n.cpu()),
                        percent(n.memory()),
                        n.version(),
                        n.started() == null
                                ? null
                                : Durations.approximately(
                                        Duration.between(n.started(), n.time().plus(n.age()))),
                        Durations.approximately(n.age()) + " ago",
                        n.types().isEmpty() ? null : String.join(",", n.types())));
                if (wide) {
                    cells.addAll(Arrays.asList(n.instance(), n.host(), n.started(), Durations.format(n.interval())));
                }
                table.row(cells.toArray());
            }
            output.print(out(), table);
            return 0;
        }
    }

    /** What the table's STATE says: offline, drain requested, or the state the node last wrote. */
    private static String state(NodeView n) {
        return n.offline()
                ? "offline"
                : n.drain() && n.state() != NodeState.DRAINING
                        ? "drain requested"
                        : n.state().name().toLowerCase();
    }

    /** One node for {@code -o json}; the field names are documented in docs/OUTPUT.md. */
    static Map<String, Object> json(NodeView n) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", n.id().toString());
        json.put("state", state(n));
        json.put("instance", n.instance());
        json.put("host", n.host());
        json.put("slots", n.slots());
        json.put("maxSlots", n.maxSlots());
        json.put("robotsRunning", n.robotsRunning());
        json.put("robotsFailed", n.robotsFailed());
        json.put("load", n.load());
        json.put("cpu", n.cpu());
        json.put("memory", n.memory());
        json.put("version", n.version());
        json.put("started", n.started());
        json.put("seen", n.time());
        json.put("seenAgoMs", n.age().toMillis());
        json.put("intervalMs", n.interval().toMillis());
        json.put("offline", n.offline());
        json.put("drain", n.drain());
        json.put("types", n.types());
        return json;
    }

    private static String percent(double fraction) {
        return Math.round(fraction * 100) + "%";
    }
}
