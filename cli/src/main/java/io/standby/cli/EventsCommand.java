package io.standby.cli;

import io.standby.slot.Durations;
import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.StandbyDatabase;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code standby events}: how slots changed hands, with server timestamps; {@code --follow} keeps printing. */
@Command(name = "events", mixinStandardHelpOptions = true,
        footerHeading = "%nExamples:%n", footer = {
            "  standby events --since 10m",
            "  standby events --slot slot-0 --follow",
            "  standby events --robot c1 --since 1h"},
        description = {"Lists how slots changed hands: claims, take-overs (with how long the slot went without a "
                + "heartbeat), take-backs, releases, and losses with their reason; and how robots' runs went: starts, "
                + "restarts, failures, stops, moves.",
            "Times are the database's. Nodes record them in the capped 'events' collection (about the last 50,000)."})
final class EventsCommand extends AdminCommand {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneId.systemDefault());
    /** How far back a follow looks again each time, for events stamped just before the last one it printed. */
    private static final Duration OVERLAP = Duration.ofSeconds(5);

    @Option(names = "--since", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Only the events of the last DURATION (default: all that are kept).")
    Duration since;

    @Option(names = "--slot", paramLabel = "SLOT", description = "Only the events of this slot.")
    String slot;

    @Option(names = "--robot", paramLabel = "ID", description = "Only the events of this robot.")
    String robot;

    @Option(names = "--follow", description = "Keep printing new events until Ctrl-C.")
    boolean follow;

    @Override
    public Integer call() throws InterruptedException {
        if (since != null && since.isZero()) {
            throw Flags.invalid("invalid --since 0s: must be more than 0");
        }
        try (StandbyDatabase db = connect()) {
            EventTable table = new EventTable(db);
            PrintWriter out = out();
            List<EventView> events = table.list(since, slot, robot, null);
            if (events.isEmpty() && !follow) {
                out.println("No events" + (slot == null ? "" : " of " + slot) + (robot == null ? "" : " of robot " + robot)
                    + (since == null ? "" : " in the last " + Durations.format(since)) + ".");
            }
            events.forEach(event -> out.println(line(event)));
            out.flush();
            if (!follow) {
                return 0;
            }
            // What was printed within the overlap, by id: an event seen again there is not printed twice.
            Map<String, Instant> printed = new HashMap<>();
            Instant last = null;
            for (EventView event : events) {
                printed.put(event.id(), event.time());
                last = event.time();
            }
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(500);
                Instant from = last == null ? null : last.minus(OVERLAP);
                for (EventView event : table.list(last == null ? since : null, slot, robot, from)) {
                    if (printed.putIfAbsent(event.id(), event.time()) == null) {
                        out.println(line(event));
                        last = last == null || event.time().isAfter(last) ? event.time() : last;
                    }
                }
                out.flush();
                if (from != null) {
                    printed.values().removeIf(time -> time.isBefore(from));
                }
            }
            return 0;
        }
    }

    private static String firstLine(String text) {
        return text == null ? "" : text.lines().findFirst().orElse("");
    }

    static String line(EventView e) {
        String what = switch (e.type()) {
            case "took-over" -> "took over from " + e.from() + e.unowned().map(gap -> " (no heartbeat for " + Durations.format(gap) + ")").orElse("")
                    + ("owner-gone".equals(e.how()) ? ", before its lease ran out: " + e.evidence() : "");
            case "took-back" -> "took back from an earlier process of the same node";
            case "lost" -> "lost (" + e.reason() + ")";
            case "paused" -> "paused its robots: no renewal acknowledged for the late mark, the slot kept";
            case "resumed" -> "resumed its robots: a renewal was acknowledged in time";
            case "robot-restarting" -> "robot " + e.robot() + " failed, restarting: " + firstLine(e.error());
            case "robot-failed" -> "robot " + e.robot() + " failed for good: " + firstLine(e.error());
            case "robot-moved" -> "robot " + e.robot() + " moved to " + e.to();
            default -> e.robot() != null ? "robot " + e.robot() + " " + e.type().substring("robot-".length()) : e.type();
        };
        return String.format("%s  %-8s %-16s epoch %-4d %s", TIME.format(e.time()), e.slot(), e.node(), e.epoch(), what);
    }
}
