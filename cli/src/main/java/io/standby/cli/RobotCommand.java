package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.admin.RobotTable.MoveResult;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code standby robot add|move|stop|start|rm|list|rebalance}. Every change is one conditional update of a robot
 * document, so it is safe while nodes run; the owner of the robot's slot acts on it within one poll. Bad input is
 * rejected before the database is touched, or by the update's own condition.
 */
@Command(
        name = "robot",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby robot add c1 --type counter --config intervalMs=500",
            "  standby robot list --slot slot-0",
            "  standby robot move c1 --slot slot-2"
        },
        description = {
            "Adds, moves, stops, starts, removes, lists, shows and rebalances robots.",
            "Changes are safe while nodes run: the owner of a robot's slot applies them within one poll."
        },
        subcommands = {
            RobotAdd.class,
            RobotCommand.Move.class,
            RobotCommand.Stop.class,
            RobotCommand.Start.class,
            RobotCommand.Remove.class,
            RobotList.class,
            RobotCommand.Rebalance.class,
            RobotShow.class
        })
final class RobotCommand {

    static final String AUTO = "auto";

    @Command(
            name = "move",
            footerHeading = "%nExamples:%n",
            footer = {"  standby robot move c1 --slot slot-2"},
            description = {
                "Binds a robot to another slot; two nodes never run it at once.",
                "A robot nobody runs moves at once; a running one is stopped by its node with a final checkpoint "
                        + "and handed over within one poll."
            })
    static final class Move extends AdminCommand {
        @Parameters(paramLabel = "ID", description = "The robot to move.")
        String id;

        @Option(names = "--slot", required = true, paramLabel = "SLOT", description = "The slot to move it to.")
        String slot;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                RobotTable robots = new RobotTable(db);
                String from = robots.get(id).map(RobotView::slotId).orElse(null);
                MoveResult result = Flags.checked(() -> robots.move(id, slot));
                Map<String, Object> done = result(
                        switch (result) {
                            case MOVED -> "moved";
                            case REQUESTED -> "requested";
                            case ALREADY_THERE -> "unchanged";
                        },
                        id);
                done.put("from", from);
                done.put("slot", slot);
                done.put("node", result == MoveResult.REQUESTED ? runner(robots, id) : null);
                if (output.print(out(), done)) {
                    return 0;
                }
                switch (result) {
                    case MOVED -> out().printf("Moved %s to %s at once: nobody was running it.%n", id, slot);
                    case REQUESTED ->
                        out().printf(
                                        "%s is running on %s: its node stops it with a final checkpoint "
                                                + "and hands it over to %s within one poll.%n",
                                        id, runner(robots, id), slot);
                    case ALREADY_THERE -> out().printf("%s is already in %s; nothing to move.%n", id, slot);
                }
                out().flush();
                return 0;
            }
        }
    }

    @Command(
            name = "stop",
            footerHeading = "%nExamples:%n",
            footer = {"  standby robot stop c1"},
            description = "Stops a robot and keeps it stopped; a running one checkpoints first. Its context is kept.")
    static final class Stop extends AdminCommand {
        @Parameters(paramLabel = "ID", description = "The robot to stop.")
        String id;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                RobotTable robots = new RobotTable(db);
                robots.stop(id);
                RobotView robot = robots.get(id).orElse(null);
                boolean running = robot != null && robot.node() != null;
                Map<String, Object> done = result(running ? "stopping" : "stopped", id);
                done.put("node", running ? robot.node() : null);
                if (output.print(out(), done)) {
                    return 0;
                }
                if (!running) {
                    out().printf("Stopped %s.%n", id);
                } else {
                    out().printf(
                                    "Stopping %s: its node (%s) lets it checkpoint and stops it within one poll.%n",
                                    id, robot.node());
                }
                out().flush();
                return 0;
            }
        }
    }

    @Command(
            name = "start",
            footerHeading = "%nExamples:%n",
            footer = {"  standby robot start c1"},
            description =
                    "Wants a stopped (or FAILED) robot running again; the owner of its slot starts it within one poll.")
    static final class Start extends AdminCommand {
        @Parameters(paramLabel = "ID", description = "The robot to start.")
        String id;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                RobotTable robots = new RobotTable(db);
                robots.start(id);
                RobotView robot = robots.get(id).orElse(null);
                boolean running = robot != null && robot.state() == RobotState.RUNNING && robot.node() != null;
                Map<String, Object> done = result(running ? "already-running" : "started", id);
                done.put("slot", robot == null ? null : robot.slotId());
                done.put("node", running ? robot.node() : null);
                if (output.print(out(), done)) {
                    return 0;
                }
                if (running) {
                    out().printf("%s already runs on %s.%n", id, robot.node());
                } else {
                    out().printf(
                                    "Started %s: the owner of %s runs it within one poll.%n",
                                    id, robot == null ? "its slot" : robot.slotId());
                }
                out().flush();
                return 0;
            }
        }
    }

    @Command(
            name = "rm",
            footerHeading = "%nExamples:%n",
            footer = {"  standby robot rm c1", "  standby robot rm c1 --wait 0s             # do not wait for its node"
            },
            description = {
                "Removes a robot and its context.",
                "A robot nobody runs goes at once. A running one is interrupted by its node within one poll, "
                        + "which then deletes it; until then the id cannot be added again, so the old run never "
                        + "overlaps with a new robot of the same id."
            })
    static final class Remove extends AdminCommand {
        @Parameters(paramLabel = "ID", description = "The robot to remove.")
        String id;

        @Option(
                names = "--wait",
                paramLabel = "DURATION",
                defaultValue = "10s",
                converter = DurationConverter.class,
                description = "How long to wait for the node running it to stop and delete it (default: "
                        + "${DEFAULT-VALUE}); 0s returns at once.")
        Duration wait;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() throws InterruptedException {
            try (StandbyDatabase db = connect()) {
                RobotTable table = new RobotTable(db);
                RobotView robot = table.get(id).orElse(null);
                RobotTable.RemoveResult result = table.remove(id);
                long deadline = System.nanoTime() + wait.toNanos();
                while (result == RobotTable.RemoveResult.REQUESTED
                        && table.get(id).isPresent()
                        && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                boolean gone = table.get(id).isEmpty();
                Map<String, Object> done = result(gone ? "removed" : "requested", id);
                done.put("node", gone || robot == null ? null : robot.node());
                if (output.print(out(), done)) {
                    return 0;
                }
                if (gone) {
                    out().printf("Removed %s and its context.%n", id);
                } else {
                    String node = robot == null || robot.node() == null ? "its node" : robot.node();
                    out().printf(
                                    "Removal of %s requested: %s stops it and deletes it within one poll (or the "
                                            + "next owner "
                                            + "of its slot does, if that node is gone); until then the id cannot be "
                                            + "added again.%n",
                                    id, node);
                }
                out().flush();
                return 0;
            }
        }
    }

    @Command(
            name = "rebalance",
            footerHeading = "%nExamples:%n",
            footer = {"  standby robot rebalance --dry-run", "  standby robot rebalance --capacity 10"},
            description = {
                "Evens out the robots' weight over the live slots with the fewest moves.",
                "Largest robots move first. Running robots checkpoint and hand over within one poll."
            })
    static final class Rebalance extends AdminCommand {
        @Option(names = "--dry-run", description = "Print the moves without making them.")
        boolean dryRun;

        @Option(
                names = "--capacity",
                paramLabel = "C",
                description = "No move may leave a slot with more total weight than this.")
        Double capacity;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            OptionalDouble room = capacity(capacity);
            try (StandbyDatabase db = connect()) {
                List<RobotTable.Move> moves = Flags.checked(
                        () -> dryRun ? new RobotTable(db).planRebalance(room) : new RobotTable(db).rebalance(room));
                Map<String, Object> done = new LinkedHashMap<>();
                done.put("result", moves.isEmpty() ? "balanced" : dryRun ? "planned" : "moved");
                done.put("dryRun", dryRun);
                done.put(
                        "moves",
                        moves.stream()
                                .map(m -> {
                                    Map<String, Object> move = new LinkedHashMap<>();
                                    move.put("robot", m.robotId());
                                    move.put("from", m.from());
                                    move.put("to", m.to());
                                    move.put("weight", m.weight());
                                    return move;
                                })
                                .toList());
                if (output.print(out(), done)) {
                    return 0;
                }
                if (moves.isEmpty()) {
                    out().println("Already balanced.");
                    out().flush();
                    return 0;
                }
                int width =
                        moves.stream().mapToInt(m -> m.robotId().length()).max().orElse(0);
                for (RobotTable.Move m : moves) {
                    out().printf(
                                    "%-" + width + "s  %s -> %s  (weight %s)%n",
                                    m.robotId(),
                                    m.from(),
                                    m.to(),
                                    number(m.weight()));
                }
                out().printf(
                                dryRun
                                        ? "Dry run: %d move(s) would even out the load; nothing changed.%n"
                                        : "Moved %d robot(s): idle ones at once, running ones hand over within one "
                                                + "poll.%n",
                                moves.size());
                out().flush();
                return 0;
            }
        }
    }

    /** The start of a change's {@code -o json}: what was done, in one word, and to which robot. */
    static Map<String, Object> result(String result, String robot) {
        Map<String, Object> done = new LinkedHashMap<>();
        done.put("result", result);
        done.put("robot", robot);
        return done;
    }

    private static String runner(RobotTable robots, String id) {
        return robots.get(id).map(RobotView::node).orElse("its node");
    }

    static void requirePositive(String option, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw Flags.invalid("invalid " + option + " " + number(value) + ": must be a number more than 0");
        }
    }

    static OptionalDouble capacity(Double capacity) {
        if (capacity == null) {
            return OptionalDouble.empty();
        }
        requirePositive("--capacity", capacity);
        return OptionalDouble.of(capacity);
    }

    /** 2 rather than 2.0, so that a value reads as it was typed. */
    static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15
                ? Long.toString((long) value)
                : Double.toString(value);
    }
}
