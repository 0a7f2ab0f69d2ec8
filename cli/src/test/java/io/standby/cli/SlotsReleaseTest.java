package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code slots release}: {@code --dry-run} says what would go and changes nothing; on a terminal it asks and a "no"
 * changes nothing; {@code --yes} asks nobody; without a terminal it does not ask, so scripts work as before.
 */
class SlotsReleaseTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private final Function<String, Optional<String>> console = SlotsCommand.Release.ask;
    private final List<String> asked = new ArrayList<>();
    private StandbyDatabase admin;

    /** slot-0 owned by 10.0.0.1:7700 at epoch 1 with robot c1 running on it. */
    @BeforeEach
    void setUp() {
        admin = database.connection();
        new SlotTable(admin).init(2);
        TestSlots.ownedByTenZeroZeroOne(admin, "slot-0");
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("c1", "counter", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
        admin.database()
                .getCollection("robots")
                .updateOne(
                        Filters.eq("_id", "c1"),
                        Updates.combine(Updates.set("state", "RUNNING"), Updates.set("node", "10.0.0.1:7700")));
    }

    @AfterEach
    void restoreTheConsole() {
        SlotsCommand.Release.ask = console;
    }

    private void answer(String answer) {
        SlotsCommand.Release.ask = prompt -> {
            asked.add(prompt);
            return Optional.ofNullable(answer);
        };
    }

    private CliRun run(String... args) {
        return CliRun.against(database.name(), args);
    }

    private SlotView slot0() {
        return new SlotTable(admin).get("slot-0").orElseThrow();
    }

    @Test
    void aDryRunSaysOwnerEpochAndRobotsAndChangesNothing() {
        answer("y");
        CliRun run = run("slots", "release", "slot-0", "--dry-run");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(
                "Would release slot-0 from 10.0.0.1:7700 (epoch 1 -> 2), fencing 1 robot(s): c1 (RUNNING on "
                        + "10.0.0.1:7700); nothing changed.",
                run.out().strip());
        Document json = Document.parse(
                run("slots", "release", "slot-0", "--dry-run", "-o", "json").out());
        assertEquals("would-release", json.getString("result"));
        assertEquals(1, json.get("epoch", Number.class).longValue());
        assertEquals(2, json.get("newEpoch", Number.class).longValue());
        assertEquals("c1", json.getList("robots", Document.class).getFirst().getString("id"));
        assertEquals(List.of(), asked, "a dry run asks nothing");
        assertEquals(1, slot0().epoch());
        assertEquals("10.0.0.1:7700", String.valueOf(slot0().owner()));
    }

    @Test
    void onATerminalItAsksAndANoChangesNothing() {
        answer("n");
        CliRun run = run("slots", "release", "slot-0");
        assertEquals(1, run.exitCode(), run.err());
        assertEquals(
                "standby: not released: slot-0 stays with 10.0.0.1:7700 (answer y, or pass --yes)", run.errorLine());
        assertEquals(1, asked.size());
        assertTrue(asked.getFirst().contains("c1 (RUNNING on 10.0.0.1:7700)"), asked.getFirst());
        assertEquals(1, slot0().epoch());

        answer("");
        assertEquals(1, run("slots", "release", "slot-0").exitCode(), "no answer is not a yes");
        assertEquals(1, slot0().epoch());
    }

    @Test
    void onATerminalAYesReleases() {
        answer("yes");
        CliRun run = run("slots", "release", "slot-0");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("Released slot-0 from 10.0.0.1:7700 (epoch 1 -> 2)"), run.out());
        assertEquals(2, slot0().epoch());
    }

    @Test
    void yesAsksNobody() {
        answer("n");
        CliRun run = run("slots", "release", "slot-0", "--yes");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(List.of(), asked);
        assertEquals(2, slot0().epoch());
    }

    @Test
    void withoutATerminalItDoesNotAskAsKubectlDoesNot() {
        answer(null);
        CliRun run = run("slots", "release", "slot-0", "-o", "json");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("released", Document.parse(run.out()).getString("result"));
        assertEquals(2, slot0().epoch());
    }

    @Test
    void aFreeSlotAsksNothing() {
        answer("n");
        CliRun run = run("slots", "release", "slot-1");
        assertEquals(0, run.exitCode(), run.err());
        assertEquals("slot-1 has no owner; nothing to release.", run.out().strip());
        assertEquals(List.of(), asked);
    }

    @Test
    void anUnknownSlotIsOneLineNamingIt() {
        CliRun run = run("slots", "release", "slot-9", "--dry-run");
        assertEquals(1, run.exitCode());
        assertTrue(run.errorLine().contains("'slot-9'"), run.errorLine());
        assertEquals("", run.out());
    }
}
