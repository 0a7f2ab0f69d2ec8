package io.standby.cli;

import io.standby.slot.Durations;
import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.StandbyDatabase;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code standby events}: how slots changed hands, with server timestamps; {@code --follow} keeps printing. */
@Command(
        name = "events",
        footerHeading = "%nExamples:%n",
        footer = {
            "  standby events --since 10m",
            "  standby events --slot slot-0 --follow",
            "  standby events --robot c1 --since 1h",
            "  standby events -o json --since 1h | jq '.[] | select(.type == \"took-over\") | .gapMs'"
        },
        description = {
            "Lists how slots changed hands: claims, take-overs (with how long the slot went without a "
                    + "heartbeat), take-backs, releases, and losses with their reason; and how robots' runs went: "
                    + "starts, "
                    + "restarts, failures, stops, moves.",
            "Times are the database's. Nodes record them in the capped 'events' collection (about the last 50,000)."
        })
final class EventsCommand extends AdminCommand {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneId.systemDefault());
    /** How far back a follow looks again each time, for events stamped just before the last one it printed. */
    private static final Duration OVERLAP = Duration.ofSeconds(5);

    @Option(
            names = "--since",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Only the events of the last DURATION (default: all that are kept).")
    Duration since;

    @Option(names = "--slot", paramLabel = "SLOT", description = "Only the events of this slot.")
    String slot;

    @Option(names = "--robot", paramLabel = "ID", description = "Only the events of this robot.")
    String robot;

    @Option(
            names = "--follow",
            description = "Keep printing new events until Ctrl-C; with -o json, one JSON object a line; with -o yaml, "
                    + "one YAML document each.")
    boolean follow;

    @Mixin
    ListOutput output;

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
                output.printEmpty(
                        out,
                        "No events" + (slot == null ? "" : " of " + slot) + (robot == null ? "" : " of robot " + robot)
                                + (since == null ? "" : " in the last " + Durations.format(since)) + ".");
                return 0;
            }
            if (output.structured() && !follow) {
                output.print(out, events.stream().map(EventsCommand::json).toList());
                return 0;
            }
            if (!output.structured() && !output.noHeaders) {
                out.println(header(output.wide()));
            }
            events.forEach(event -> out.println(print(event)));
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
                        out.println(print(event));
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

    /**
     * One event as {@code -o} asks: a line of the table or, when following, a line of JSON (JSON Lines) or a YAML
     * document of its own, so that a reader can act on each as it comes.
     */
    private String print(EventView e) {
        if (output.format == OutputFormat.YAML) {
            return "---\n" + Yaml.write(json(e)).stripTrailing();
        }
        return output.structured() ? Json.compact(json(e)) : output.wide() ? wideLine(e) : line(e);
    }

    private static String header(boolean wide) {
        return wide
                ? String.format(
                        "%-23s  %-8s %-16s %-10s %-16s %-24s %s",
                        "TIME", "SLOT", "NODE", "EPOCH", "TYPE", "ID", "EVENT")
                : String.format("%-23s  %-8s %-16s %-10s %s", "TIME", "SLOT", "NODE", "EPOCH", "EVENT");
    }

    /** The line with the event's type and id, and its whole error on one line rather than its first line. */
    private static String wideLine(EventView e) {
        String what = what(e);
        if (e.error() != null && !firstLine(e.error()).isEmpty() && what.endsWith(firstLine(e.error()))) {
            what = what.substring(0, what.length() - firstLine(e.error()).length())
                    + e.error().strip().replaceAll("\\s+", " ");
        }
        return String.format(
                "%s  %-8s %-16s epoch %-4d %-16s %-24s %s",
                TIME.format(e.time()), e.slot(), e.node(), e.epoch(), e.type(), e.id(), what);
    }

    /** One event for {@code -o json}; the field names are documented in docs/OUTPUT.md. */
    static Map<String, Object> json(EventView e) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", e.id());
        json.put("time", e.time());
        json.put("type", e.type());
        json.put("slot", e.slot());
        json.put("epoch", e.epoch());
        json.put("node", e.node());
        json.put("robot", e.robot());
        json.put("from", e.from());
        json.put("heartbeat", e.heartbeat());
        json.put("gapMs", e.unowned().map(Duration::toMillis).orElse(null));
        json.put("reason", e.reason());
        json.put("error", e.error());
        json.put("to", e.to());
        json.put("how", e.how());
        json.put("evidence", e.evidence());
        json.put("text", what(e));
        return json;
    }

    static String line(EventView e) {
        return String.format(
                "%s  %-8s %-16s epoch %-4d %s", TIME.format(e.time()), e.slot(), e.node(), e.epoch(), what(e));
    }

    /** What happened, in words. */
    private static String what(EventView e) {
        String what = switch (e.type()) {
            case "took-over" ->
                "took over from " + e.from()
                        + e.unowned()
                                .map(gap -> " (no heartbeat for " + Durations.format(gap) + ")")
                                .orElse("")
                        + ("owner-gone".equals(e.how()) ? ", before its lease ran out: " + e.evidence() : "")
                        + ("link".equals(e.how()) ? ", by a watch link before its lease ran out: " + e.evidence() : "");
            case "took-back" -> "took back from an earlier process of the same node";
            case "lost" -> "lost (" + e.reason() + ")";
            case "paused" ->
                "paused its robots, the slot kept: no renewal acknowledged for the late mark, or a watch link ended "
                        + "and "
                        + "no renewal outran its deadline";
            case "resumed" -> "resumed its robots: a renewal was acknowledged in time";
            case "robot-restarting" -> "robot " + e.robot() + " failed, restarting: " + firstLine(e.error());
            case "robot-failed" -> "robot " + e.robot() + " failed for good: " + firstLine(e.error());
            case "robot-moved" -> "robot " + e.robot() + " moved to " + e.to();
            default ->
                e.robot() != null ? "robot " + e.robot() + " " + e.type().substring("robot-".length()) : e.type();
        };
        return what;
    }
}
