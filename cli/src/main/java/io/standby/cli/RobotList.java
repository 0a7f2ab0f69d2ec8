package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotView;
import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code standby robot list}: the robots by slot, as a table or as JSON. */
@Command(
        name = "list",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby robot list",
            "  standby robot list --slot slot-0 -o wide",
            "  standby robot list -o json | jq -r '.[] | select(.state != \"RUNNING\") | .id'"
        },
        description = "Lists the robots by slot: where they run, what is wanted of them, and their context.")
final class RobotList extends AdminCommand {

    private static final int CONTEXT_WIDTH = 40;
    private static final int ERROR_WIDTH = 40;

    @Option(names = "--slot", paramLabel = "SLOT", description = "Only the robots of this slot.")
    String slot;

    @Mixin
    ListOutput output;

    @Override
    public Integer call() {
        try (StandbyDatabase db = connect()) {
            List<RobotView> robots = Flags.checked(() -> new RobotTable(db).list(slot));
            if (robots.isEmpty()) {
                output.printEmpty(out(), "No robots.");
                return 0;
            }
            if (output.structured()) {
                output.print(out(), robots.stream().map(RobotView::toDocument).toList());
                return 0;
            }
            // Wide cuts nothing: it is for a wide terminal or a file, where a long value is still read.
            boolean wide = output.wide();
            List<String> header = new ArrayList<>(List.of(
                    "ROBOT",
                    "TYPE",
                    "SLOT",
                    "STATE",
                    "DESIRED",
                    "NODE",
                    "EPOCH",
                    "PRIORITY",
                    "WEIGHT",
                    "RESTARTS",
                    "CONTEXT",
                    "LAST ERROR"));
            if (wide) {
                header.addAll(List.of("UPDATED", "CONFIG", "INCARNATION"));
            }
            Table table = new Table(header.toArray(String[]::new));
            boolean cut = false;
            for (RobotView r : robots) {
                String context = Json.compact(r.context());
                String error = oneLine(r.lastError());
                if (!wide) {
                    cut |= context.length() > CONTEXT_WIDTH
                            || (r.lastError() != null && !r.lastError().equals(Json.truncate(error, ERROR_WIDTH)));
                    context = Json.truncate(context, CONTEXT_WIDTH);
                    error = Json.truncate(error, ERROR_WIDTH);
                }
                List<Object> cells = new ArrayList<>(Arrays.asList(
                        r.id(),
                        r.type(),
                        r.moving() ? r.slotId() + "->" + r.target() : r.slotId(),
                        r.state().name(),
                        r.desired().value(),
                        r.node(),
                        r.epoch(),
                        r.priority(),
                        RobotCommand.number(r.weight()),
                        r.restarts(),
                        context,
                        error));
                if (wide) {
                    cells.addAll(Arrays.asList(r.updated(), Json.compact(r.config()), r.incarnation()));
                }
                table.row(cells.toArray());
            }
            output.print(out(), table);
            if (cut && !output.noHeaders) {
                out().println("Long values are cut; 'standby robot show ID' shows a robot whole, -o wide every value.");
            }
            out().flush();
            return 0;
        }
    }

    private static String oneLine(String text) {
        return text == null ? null : text.strip().replaceAll("\\s+", " ");
    }
}
