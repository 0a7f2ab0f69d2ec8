package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code standby __complete slots|robots|nodes}, which a completion script calls on TAB: the names from the database,
 * and nothing at all (exit 0, no error line) when the database is away.
 */
class CompletionTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    @TempDir
    Path dir;

    @Test
    void theHiddenCommandPrintsNamesAndNothingButExitZeroWhenTheDatabaseIsAway() {
        StandbyDatabase admin = database.connection();
        new SlotTable(admin).init(2);
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("c1", "counter", "slot-1", 0, 1, new Document()), OptionalDouble.empty());
        assertEquals(
                "slot-0\nslot-1\n",
                CliRun.against(database.name(), "__complete", "slots").out());
        assertEquals(
                "c1\n", CliRun.against(database.name(), "__complete", "robots").out());
        long start = System.nanoTime();
        CliRun away = CliRun.of("__complete", "slots", "--mongo", "mongodb://127.0.0.1:1");
        assertEquals(List.of(0, "", ""), List.of(away.exitCode(), away.out(), away.err()));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "gave up quickly");
        CliRun help = CliRun.of("--help");
        assertTrue(!help.out().contains("__complete"), "hidden:\n" + help.out());
    }
}
