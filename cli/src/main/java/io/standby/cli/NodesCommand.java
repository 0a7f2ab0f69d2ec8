package io.standby.cli;

import io.standby.slot.Durations;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.StandbyDatabase;
import picocli.CommandLine.Command;

import java.time.Duration;
import java.util.List;

/** {@code standby nodes}: every node in the registry, owners and standbys at a glance. */
@Command(name = "nodes", mixinStandardHelpOptions = true,
        footerHeading = "%nExamples:%n", footer = {
            "  standby nodes",
            "  standby nodes --mongo mongodb://db1,db2,db3/?replicaSet=rs0"},
        description = {"Lists the nodes: who owns which slots, who stands by, their robots, load and robot types.",
            "From the nodes registry, which every node writes every few heartbeats; a node not seen for three of "
                    + "its intervals shows as offline, and goes from the registry after 30 intervals (at least ten minutes)."})
final class NodesCommand extends AdminCommand {

    @Override
    public Integer call() {
        try (StandbyDatabase db = connect()) {
            List<NodeView> nodes = new NodeTable(db).list();
            if (nodes.isEmpty()) {
                out().println("No nodes. Start one with: standby node --ip IP --port PORT");
                out().flush();
                return 0;
            }
            Table table = new Table("NODE", "STATE", "SLOTS", "ROBOTS", "FAILED", "LOAD", "CPU", "MEMORY", "VERSION", "UP", "SEEN", "TYPES");
            for (NodeView n : nodes) {
                String state = n.offline() ? "offline" : n.drain() && n.state() != NodeState.DRAINING
                        ? "drain requested" : n.state().name().toLowerCase();
                table.row(n.id(), state, n.slots().isEmpty() ? "-" : String.join(",", n.slots()) + " (of " + n.maxSlots() + ")",
                        n.robotsRunning(), n.robotsFailed(), n.load(), percent(n.cpu()), percent(n.memory()), n.version(),
                        n.started() == null ? null : Durations.approximately(Duration.between(n.started(), n.time().plus(n.age()))),
                        Durations.approximately(n.age()) + " ago", n.types().isEmpty() ? null : String.join(",", n.types()));
            }
            table.print(out());
            return 0;
        }
    }

    private static String percent(double fraction) {
        return Math.round(fraction * 100) + "%";
    }
}
