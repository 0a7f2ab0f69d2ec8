package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.admin.RobotTable.NewRobot;
import io.standby.robot.model.RobotView;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.NodeTable;
import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.bson.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code standby robot add}: checks everything it can before it writes, so bad input changes nothing. */
@Command(
        name = "add",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby robot add c1 --type counter",
            "  standby robot add c2 --type counter --slot slot-1 --config intervalMs=500",
            "  standby robot add big --type counter --weight 4 --capacity 10",
            "  standby robot add c3 --type counter --config-json '{\"intervalMs\": 250}'"
        },
        description = {
            "Adds a robot, bound to a slot; the slot's owner starts it within one poll.",
            "With --slot auto it goes to the least-loaded live slot by total weight (to any slot while none is live)."
        })
final class RobotAdd extends AdminCommand {
    @Parameters(paramLabel = "ID", description = "The robot's id: letters, digits, '.', '_', ':' or '-'.")
    String id;

    @Option(
            names = "--type",
            required = true,
            paramLabel = "TYPE",
            description = "The robot type, e.g. counter; the nodes must know it (built in, or from their --plugins).")
    String type;

    @Option(
            names = "--slot",
            paramLabel = "SLOT|auto",
            defaultValue = RobotCommand.AUTO,
            description = "The slot to bind it to, or auto (default: ${DEFAULT-VALUE}).")
    String slot;

    @Option(
            names = "--priority",
            paramLabel = "P",
            defaultValue = "0",
            description = "Higher starts first when a node takes the slot over (default: ${DEFAULT-VALUE}).")
    int priority;

    @Option(
            names = "--weight",
            paramLabel = "W",
            defaultValue = "1",
            description = "How much load the robot puts on its slot, more than 0 (default: ${DEFAULT-VALUE}).")
    double weight;

    @Option(
            names = "--config",
            paramLabel = "KEY=VALUE",
            description = "A configuration value; repeatable. true/false and numbers are stored typed, anything else "
                    + "as text. A key given twice takes the last value; KEY=VALUE beats the same key in --config-json.")
    List<String> config = new ArrayList<>();

    @Option(
            names = "--config-json",
            paramLabel = "JSON",
            description = "The configuration as a JSON object, e.g. '{\"intervalMs\": 500, \"urls\": [\"a\", \"b\"]}'.")
    String configJson;

    @Option(
            names = "--capacity",
            paramLabel = "C",
            description = "Only with --slot auto: the most total weight a slot may carry after the robot is added.")
    Double capacity;

    @Option(
            names = "--allow-unknown-type",
            description = "Add it even if no live node knows the type yet (a plugin about to be deployed).")
    boolean allowUnknownType;

    @Mixin
    ObjectOutput output;

    @Override
    public Integer call() {
        // Everything that needs no database is checked first, so bad input changes nothing.
        RobotCommand.requirePositive("--weight", weight);
        OptionalDouble room = RobotCommand.capacity(capacity);
        boolean auto = RobotCommand.AUTO.equals(slot);
        if (!auto && room.isPresent()) {
            throw Flags.invalid("--capacity " + RobotCommand.number(capacity)
                    + " applies only to --slot auto, not to --slot " + slot);
        }
        Document document = RobotConfigArguments.parse(configJson, config);
        RobotTypes builtIn = RobotTypes.builtIn();
        try {
            RobotTable.validateConfig(type, document, builtIn);
        } catch (IllegalArgumentException e) {
            // The factory's own words, about its config: not mapped to option names like ours.
            throw Flags.invalid(e.getMessage());
        }
        try (StandbyDatabase db = connect()) {
            if (!allowUnknownType) {
                try {
                    RobotTable.requireRunnableType(type, builtIn, new NodeTable(db));
                } catch (IllegalArgumentException e) {
                    throw Flags.invalid(e.getMessage() + "; --allow-unknown-type adds it anyway");
                }
            }
            RobotView added = Flags.checked(() -> new RobotTable(db)
                    .add(new NewRobot(id, type, auto ? null : slot, priority, weight, document), room));
            Map<String, Object> done = RobotCommand.result("added", added.id());
            done.put("type", added.type());
            done.put("slot", added.slotId());
            done.put("incarnation", added.incarnation());
            done.put("builtInType", builtIn.get(type).isPresent());
            if (output.print(out(), done)) {
                return 0;
            }
            out().printf("Added %s (%s) to %s.%n", added.id(), added.type(), added.slotId());
            if (builtIn.get(type).isEmpty()) {
                out().printf(
                                "Note: '%s' is not a built-in type (%s): only nodes with it in their --plugins can "
                                        + "run it, "
                                        + "and its config is checked there.%n",
                                type, String.join(", ", builtIn.names()));
            }
            out().flush();
            return 0;
        }
    }
}
