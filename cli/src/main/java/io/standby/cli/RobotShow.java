package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotView;
import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.StandbyDatabase;
import java.io.PrintWriter;
import java.util.List;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code standby robot show ID}: one robot whole, with its full last error, its config and its context. */
@Command(
        name = "show",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby robot show c1",
            "  standby robot show c1 -o json | jq .context",
            "  standby robot show c1 -o yaml"
        },
        description = {
            "Shows one robot whole: where it runs, what is wanted of it, its full last error, its "
                    + "config, its context, and its last events (starts, restarts with their errors, stops, moves).",
            "'robot list' cuts long values to fit a table; this does not."
        })
final class RobotShow extends AdminCommand {

    /** The robot's last events shown: its recent starts, restarts and failures. */
    private static final int RECENT = 10;

    private static final JsonWriterSettings PRETTY = JsonWriterSettings.builder()
            .outputMode(JsonMode.RELAXED)
            .indent(true)
            .build();

    @Parameters(paramLabel = "ID", description = "The robot to show.")
    String id;

    @Option(names = "--json", description = "The robot as JSON, for scripts; the same as -o json.")
    boolean json;

    @Mixin
    ObjectOutput output;

    @Override
    public Integer call() {
        output.alias(json);
        try (StandbyDatabase db = connect()) {
            RobotTable robots = new RobotTable(db);
            PrintWriter out = out();
            RobotView robot =
                    robots.get(id).orElseThrow(() -> new IllegalArgumentException("unknown robot '" + id + "'"));
            List<EventView> events = new EventTable(db).list(null, null, id, null);
            events = events.subList(Math.max(0, events.size() - RECENT), events.size());
            // The fields of 'robot list -o json', not the stored document: its field names are the store's, free
            // to change, and its times would come out as {"$date": ...}.
            Document view = robot.toDocument()
                    .append("events", events.stream().map(EventsCommand::json).toList());
            if (output.print(out, view)) {
                return 0;
            }
            field(out, "robot", robot.id());
            field(out, "type", robot.type());
            field(
                    out,
                    "slot",
                    robot.target() == null ? robot.slotId() : robot.slotId() + " (moving to " + robot.target() + ")");
            field(out, "state", robot.state().name() + (robot.node() == null ? "" : " on " + robot.node()));
            field(out, "desired", robot.desired().value());
            field(out, "epoch", robot.epoch());
            field(out, "priority", robot.priority());
            field(out, "weight", RobotCommand.number(robot.weight()));
            field(out, "restarts", robot.restarts());
            field(out, "updated", robot.updated());
            field(out, "incarnation", robot.incarnation());
            section(out, "last error", robot.lastError() == null ? "none" : robot.lastError());
            section(out, "config", robot.config().toJson(PRETTY));
            section(out, "context", robot.context().toJson(PRETTY));
            List<String> recent = events.stream().map(EventsCommand::line).toList();
            section(
                    out,
                    "recent events (standby events --robot " + id + ")",
                    recent.isEmpty() ? "none" : String.join("\n", recent));
            out.flush();
            return 0;
        }
    }

    private static void field(PrintWriter out, String name, Object value) {
        out.printf("%-12s %s%n", name, value == null ? "-" : value);
    }

    private static void section(PrintWriter out, String title, String text) {
        out.println();
        out.println(title + ":");
        text.lines().forEach(line -> out.println("  " + line));
    }
}
