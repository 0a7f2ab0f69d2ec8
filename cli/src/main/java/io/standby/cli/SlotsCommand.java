package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotView;
import io.standby.slot.Durations;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.io.Console;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code standby slots init|list|release}. */
@Command(
        name = "slots",
        footerHeading = "%nExamples:%n",
        footer = {"  standby slots init --count 3", "  standby slots list", "  standby slots release slot-0"},
        description = "Creates, lists and releases slots.",
        subcommands = {SlotsCommand.Init.class, SlotsCommand.ListSlots.class, SlotsCommand.Release.class})
final class SlotsCommand {

    @Command(
            name = "init",
            footerHeading = "%nExamples:%n",
            footer = {
                "  standby slots init --count 3",
                "  standby slots init --count 5                # grows 3 slots to 5"
            },
            description =
                    "Creates slot-0 .. slot-(N-1); existing slots are kept as they are, so it can run again or grow.")
    static final class Init extends AdminCommand {
        @Option(names = "--count", required = true, paramLabel = "N", description = "How many slots there should be.")
        int count;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            if (count < 1) {
                throw Flags.invalid("invalid --count " + count + ": must be at least 1");
            }
            try (StandbyDatabase db = connect()) {
                SlotTable table = new SlotTable(db);
                int created = Flags.usage(() -> table.init(count));
                List<SlotView> slots = table.list();
                Map<String, Object> done = new LinkedHashMap<>();
                done.put("result", created == 0 ? "unchanged" : "created");
                done.put("created", created);
                done.put("slots", slots.stream().map(SlotView::id).toList());
                if (output.print(out(), done)) {
                    return 0;
                }
                out().printf("Created %d slot(s); %d in all.%n", created, slots.size());
                if (slots.size() > count) {
                    out().printf("Note: %d slots exist; init never removes slots.%n", slots.size());
                }
                out().flush();
                return 0;
            }
        }
    }

    @Command(
            name = "list",
            footerHeading = "%nExamples:%n",
            footer = {
                "  standby slots list",
                "  standby slots list -o wide",
                "  standby slots list -o json | jq -r '.[] | select(.owner == null) | .id'",
                "  standby slots list --mongo mongodb://db1:27017 --db prod"
            },
            description = "Lists the slots: owner, epoch, heartbeat age and lease, judged by the database's clock.")
    static final class ListSlots extends AdminCommand {
        @Mixin
        ListOutput output;

        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                List<SlotView> slots = new SlotTable(db).list();
                if (slots.isEmpty()) {
                    output.printEmpty(out(), "No slots. Create them with: standby slots init --count 3");
                    return 0;
                }
                if (output.structured()) {
                    output.print(out(), slots.stream().map(ListSlots::json).toList());
                    return 0;
                }
                boolean wide = output.wide();
                Table table = wide
                        ? new Table(
                                "SLOT",
                                "OWNER",
                                "EPOCH",
                                "HEARTBEAT AGE",
                                "LEASE",
                                "STATE",
                                "INSTANCE",
                                "HEARTBEAT",
                                "LATE MARK",
                                "CHANGES",
                                "DRAIN")
                        : new Table("SLOT", "OWNER", "EPOCH", "HEARTBEAT AGE", "LEASE", "STATE");
                for (SlotView s : slots) {
                    boolean neverBeat = s.released();
                    List<Object> cells = new ArrayList<>(Arrays.asList(
                            s.id(),
                            s.owner(),
                            s.epoch(),
                            neverBeat ? null : Durations.approximately(s.age()),
                            s.lease().isZero() ? null : Durations.format(s.lease()),
                            s.state().name().toLowerCase()));
                    if (wide) {
                        cells.addAll(Arrays.asList(
                                s.instance(),
                                neverBeat ? null : s.time(),
                                s.lateMark() == null ? null : Durations.format(s.lateMark()),
                                s.changes(),
                                s.drain() == null
                                        ? null
                                        : s.drain().instance() + (s.drain().force() ? " (forced)" : "")));
                    }
                    table.row(cells.toArray());
                }
                output.print(out(), table);
                return 0;
            }
        }

        /** One slot for {@code -o json}; the field names are documented in docs/OUTPUT.md. */
        static Map<String, Object> json(SlotView s) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("id", s.id());
            json.put("owner", s.owner() == null ? null : s.owner().toString());
            json.put("instance", s.instance());
            json.put("state", s.state().name().toLowerCase());
            json.put("epoch", s.epoch());
            json.put("heartbeat", s.released() ? null : s.time());
            json.put("heartbeatAgeMs", s.released() ? null : s.age().toMillis());
            json.put("leaseMs", s.lease().toMillis());
            json.put("expired", s.expired());
            json.put("late", s.isLate());
            json.put("lateMarkMs", s.lateMark() == null ? null : s.lateMark().toMillis());
            json.put("changes", s.changes());
            json.put(
                    "drain",
                    s.drain() == null
                            ? null
                            : Map.of(
                                    "instance",
                                    s.drain().instance(),
                                    "force",
                                    s.drain().force()));
            return json;
        }
    }

    @Command(
            name = "release",
            footerHeading = "%nExamples:%n",
            footer = {
                "  standby slots release slot-0 --dry-run     # who owns it, which robots it would stop",
                "  standby slots release slot-0                # asks first, on a terminal",
                "  standby slots release slot-0 --yes          # asks nobody"
            },
            description = {
                "Forces a slot free while its owner may still run.",
                "The epoch moves on and the slot's robots are fenced at it before this returns, so the owner's "
                        + "writes are rejected from then on and it stops its robots at once; a standby takes over "
                        + "once the lease has run out.",
                "On a terminal it asks first; without one (a script, a pipe) it does not ask, as kubectl does not."
            })
    static final class Release extends AdminCommand {

        /**
         * Asks a person and returns the answer; empty when standard input and output are not a terminal, where nobody
         * could answer. A field so that tests can answer.
         */
        static Function<String, Optional<String>> ask = Release::askAtConsole;

        @Parameters(paramLabel = "SLOT", description = "The slot to release, e.g. slot-0.")
        String slotId;

        @Option(
                names = "--dry-run",
                description = "Say what would be released (owner, epoch, robots on the slot) and change nothing.")
        boolean dryRun;

        @Option(
                names = {"-y", "--yes"},
                description = "Release without asking, even on a terminal.")
        boolean yes;

        @Mixin
        ObjectOutput output;

        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                RobotTable table = new RobotTable(db);
                List<RobotView> robots = Flags.checked(() -> table.list(slotId));
                Optional<SlotView> now = new SlotTable(db).get(slotId).filter(s -> s.owner() != null);
                if (dryRun) {
                    Map<String, Object> plan = result(now.isEmpty() ? "unchanged" : "would-release", now, robots);
                    if (!output.print(out(), plan)) {
                        out().println(now.map(s -> "Would release " + slotId + " from " + s.owner() + " (epoch "
                                        + s.epoch() + " -> " + SlotTable.epochAfterForcedRelease(s)
                                        + "), fencing " + robots(robots) + "; nothing changed.")
                                .orElse(slotId + " has no owner; nothing to release."));
                        out().flush();
                    }
                    return 0;
                }
                if (now.isPresent() && !yes) {
                    confirm(now.get(), robots);
                }
                Optional<SlotView> before = Flags.checked(() -> table.forceRelease(slotId));
                if (output.print(out(), result(before.isEmpty() ? "unchanged" : "released", before, robots))) {
                    return 0;
                }
                if (before.isEmpty()) {
                    out().printf("%s has no owner; nothing to release.%n", slotId);
                } else {
                    SlotView was = before.get();
                    out().printf(
                                    "Released %s from %s (epoch %d -> %d). Its robots' writes under the old epoch are "
                                            + "rejected from now on; a standby takes over after the lease (%s) has "
                                            + "run out.%n",
                                    slotId,
                                    was.owner(),
                                    was.epoch(),
                                    SlotTable.epochAfterForcedRelease(was),
                                    Durations.format(was.lease()));
                }
                out().flush();
                return 0;
            }
        }

        /** Asks on a terminal; goes on without one, so that scripts keep working as they did. */
        private void confirm(SlotView slot, List<RobotView> robots) {
            Optional<String> answer = ask.apply("Release " + slotId + " from " + slot.owner() + " (epoch "
                    + slot.epoch() + "), fencing " + robots(robots) + "? [y/N] ");
            if (answer.isEmpty()) {
                return;
            }
            String word = answer.get().strip().toLowerCase(Locale.ROOT);
            if (!word.equals("y") && !word.equals("yes")) {
                throw new StandbyCli.UserError(
                        "not released: " + slotId + " stays with " + slot.owner() + " (answer y, or pass --yes)");
            }
        }

        private static String robots(List<RobotView> robots) {
            if (robots.isEmpty()) {
                return "no robots";
            }
            return robots.size() + " robot(s): "
                    + robots.stream()
                            .map(r -> r.id() + " (" + r.state().name() + (r.node() == null ? "" : " on " + r.node())
                                    + ")")
                            .collect(Collectors.joining(", "));
        }

        private Map<String, Object> result(String result, Optional<SlotView> before, List<RobotView> robots) {
            Map<String, Object> done = new LinkedHashMap<>();
            done.put("result", result);
            done.put("slot", slotId);
            done.put("owner", before.map(s -> s.owner().toString()).orElse(null));
            done.put("instance", before.map(SlotView::instance).orElse(null));
            done.put("epoch", before.map(SlotView::epoch).orElse(null));
            done.put("newEpoch", before.map(SlotTable::epochAfterForcedRelease).orElse(null));
            done.put("leaseMs", before.map(s -> s.lease().toMillis()).orElse(null));
            done.put("dryRun", dryRun);
            done.put(
                    "robots",
                    robots.stream()
                            .map(r -> {
                                Map<String, Object> robot = new LinkedHashMap<>();
                                robot.put("id", r.id());
                                robot.put("state", r.state().name());
                                robot.put("node", r.node());
                                return robot;
                            })
                            .toList());
            return done;
        }

        private static Optional<String> askAtConsole(String prompt) {
            Console console = System.console();
            if (console == null || !isTerminal(console)) {
                return Optional.empty();
            }
            // End of input (Ctrl-D) is no answer, so not a yes.
            return Optional.of(Objects.requireNonNullElse(console.readLine("%s", prompt), ""));
        }

        /**
         * From Java 22 a console exists even when redirected, and Console.isTerminal says whether it is one; Java 21
         * has no console then. By reflection, as the CLI runs on 21 too.
         */
        private static boolean isTerminal(Console console) {
            try {
                return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
            } catch (NoSuchMethodException e) {
                return true;
            } catch (ReflectiveOperationException e) {
                return false;
            }
        }
    }
}
