package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.slot.Durations;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** {@code standby slots init|list|release}. */
@Command(name = "slots", mixinStandardHelpOptions = true,
        footerHeading = "%nExamples:%n", footer = {
            "  standby slots init --count 3",
            "  standby slots list",
            "  standby slots release slot-0"},
        description = "Creates, lists and releases slots.",
        subcommands = {SlotsCommand.Init.class, SlotsCommand.ListSlots.class, SlotsCommand.Release.class})
final class SlotsCommand {

    @Command(name = "init", mixinStandardHelpOptions = true,
            footerHeading = "%nExamples:%n", footer = {
                "  standby slots init --count 3",
                "  standby slots init --count 5                # grows 3 slots to 5"},
            description = "Creates slot-0 .. slot-(N-1); existing slots are kept as they are, so it can run again or grow.")
    static final class Init extends AdminCommand {
        @Option(names = "--count", required = true, paramLabel = "N", description = "How many slots there should be.")
        int count;

        @Override
        public Integer call() {
            if (count < 1) {
                throw Flags.invalid("invalid --count " + count + ": must be at least 1");
            }
            try (StandbyDatabase db = connect()) {
                SlotTable table = new SlotTable(db);
                int created = Flags.usage(() -> table.init(count));
                List<SlotView> slots = table.list();
                out().printf("Created %d slot(s); %d in all.%n", created, slots.size());
                if (slots.size() > count) {
                    out().printf("Note: %d slots exist; init never removes slots.%n", slots.size());
                }
                out().flush();
                return 0;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            footerHeading = "%nExamples:%n", footer = {
                "  standby slots list",
                "  standby slots list --mongo mongodb://db1:27017 --db prod"},
            description = "Lists the slots: owner, epoch, heartbeat age and lease, judged by the database's clock.")
    static final class ListSlots extends AdminCommand {
        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                List<SlotView> slots = new SlotTable(db).list();
                if (slots.isEmpty()) {
                    out().println("No slots. Create them with: standby slots init --count 3");
                    out().flush();
                    return 0;
                }
                Table table = new Table("SLOT", "OWNER", "EPOCH", "HEARTBEAT AGE", "LEASE", "STATE");
                for (SlotView s : slots) {
                    boolean neverBeat = s.released();
                    table.row(s.id(), s.owner(), s.epoch(),
                            neverBeat ? null : Durations.approximately(s.age()),
                            s.lease().isZero() ? null : Durations.format(s.lease()),
                            s.state().name().toLowerCase());
                }
                table.print(out());
                return 0;
            }
        }

    }

    @Command(name = "release", mixinStandardHelpOptions = true,
            footerHeading = "%nExamples:%n", footer = {
                "  standby slots release slot-0"},
            description = {"Forces a slot free while its owner may still run.",
                "The epoch moves on and the slot's robots are fenced at it before this returns, so the owner's "
                        + "writes are rejected from then on and it stops its robots at once; a standby takes over "
                        + "once the lease has run out."})
    static final class Release extends AdminCommand {
        @Parameters(paramLabel = "SLOT", description = "The slot to release, e.g. slot-0.")
        String slotId;

        @Override
        public Integer call() {
            try (StandbyDatabase db = connect()) {
                Optional<SlotView> before = Flags.checked(() -> new RobotTable(db).forceRelease(slotId));
                if (before.isEmpty()) {
                    out().printf("%s has no owner; nothing to release.%n", slotId);
                } else {
                    SlotView was = before.get();
                    out().printf("Released %s from %s (epoch %d -> %d). Its robots' writes under the old epoch are "
                                    + "rejected from now on; a standby takes over after the lease (%s) has run out.%n",
                            slotId, was.owner(), was.epoch(), was.epoch() + 1, Durations.format(was.lease()));
                }
                out().flush();
                return 0;
            }
        }
    }
}
