package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotView;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code standby __complete slots|robots|nodes}: the names the completion script offers, one a line. Hidden, quick, and
 * silent: a TAB must not print errors into the line being typed, so any failure prints nothing and exits 0.
 */
@Command(name = "__complete", hidden = true, description = "Prints slot, robot or node names for shell completion.")
final class CompleteCommand extends AdminCommand {

    /**
     * A TAB that waits longer feels broken, and nothing is offered instead; a cold JVM's driver needs more than a
     * second to select a server on a loaded machine.
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @Parameters(paramLabel = "slots|robots|nodes")
    String what;

    @Override
    public Integer call() {
        try (StandbyDatabase db = ((StandbyCli) spec.root().userObject()).connect(TIMEOUT)) {
            List<String> names = switch (what) {
                case "slots" ->
                    new SlotTable(db).list().stream().map(SlotView::id).toList();
                case "robots" ->
                    new RobotTable(db).list(null).stream().map(RobotView::id).toList();
                case "nodes" ->
                    new NodeTable(db)
                            .list().stream().map(n -> n.id().toString()).toList();
                default -> List.of();
            };
            names.forEach(out()::println);
            out().flush();
        } catch (RuntimeException e) {
            // Silent on purpose: see the class comment.
        }
        return 0;
    }
}
