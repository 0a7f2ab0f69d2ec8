package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.EventLog;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** {@code standby events}: what the nodes recorded, filtered by slot and age, and followed as a real process. */
class EventsCommandTest {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
    }

    /** Records events the way nodes do, and waits until they are written. */
    private void record(Document... events) {
        EventLog log = new EventLog(admin.database()).start();
        for (Document event : events) {
            log.record(event);
        }
        log.close(Duration.ofSeconds(10));
    }

    private static Document event(String type, String slot, long epoch, String node) {
        return new Document("type", type)
                .append("slot", slot)
                .append("epoch", epoch)
                .append("node", node);
    }

    /** The lines under the header. */
    private static List<String> rows(CliRun run) {
        List<String> lines = run.out().strip().lines().toList();
        assertTrue(lines.getFirst().matches("TIME\\s+SLOT\\s+NODE\\s+EPOCH\\s+EVENT"), run.out());
        return lines.subList(1, lines.size());
    }

    @Test
    void listsClaimsTakeoversWithTheirGapAndLossesOldestFirstAndFilters() {
        assertEquals("No events.", CliRun.against(db, "events").out().strip());
        record(
                event("claimed", "slot-0", 1, "10.0.0.1:7700"),
                event("claimed", "slot-1", 1, "10.0.0.2:7700"),
                event("took-over", "slot-0", 2, "10.0.0.3:7700")
                        .append("from", "10.0.0.1:7700")
                        .append("heartbeat", Date.from(Instant.now().minusSeconds(6))),
                event("lost", "slot-0", 1, "10.0.0.1:7700").append("reason", "taken"));
        List<String> lines = rows(CliRun.against(db, "events"));
        assertEquals(4, lines.size(), String.join("\n", lines));
        assertTrue(
                lines.get(0)
                        .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}  "
                                + "slot-0\\s+10\\.0\\.0\\.1:7700\\s+epoch 1\\s+claimed"),
                lines.get(0));
        assertTrue(
                lines.get(2)
                        .matches(".*slot-0\\s+10\\.0\\.0\\.3:7700\\s+epoch 2\\s+took over from 10\\.0\\.0\\.1:7700 "
                                + "\\(no heartbeat for \\d+ms\\)"),
                lines.get(2));
        assertTrue(lines.get(3).endsWith("lost (taken)"), lines.get(3));

        List<String> slot1 = rows(CliRun.against(db, "events", "--slot", "slot-1"));
        assertEquals(1, slot1.size(), String.join("\n", slot1));

        admin.database()
                .getCollection(EventLog.COLLECTION)
                .updateMany(
                        Filters.eq("slot", "slot-1"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(3600))));
        List<String> recent = rows(CliRun.against(db, "events", "--since", "10m"));
        assertEquals(3, recent.size(), "the hour-old event is left out:\n" + String.join("\n", recent));

        CliRun zero = CliRun.against(db, "events", "--since", "0s");
        assertEquals(2, zero.exitCode());
    }

    @Test
    void aRobotsEventsShowItsRunsAndItsErrorsAndFilterByRobot() {
        record(
                event("robot-started", "slot-0", 1, "10.0.0.1:7700").append("robot", "c1"),
                event("robot-restarting", "slot-0", 1, "10.0.0.1:7700")
                        .append("robot", "c1")
                        .append(
                                "detail",
                                new Document("error", "java.lang.IllegalStateException: boom\n\tat x")
                                        .append("inMs", 1000)),
                event("robot-moved", "slot-0", 1, "10.0.0.1:7700")
                        .append("robot", "c1")
                        .append("detail", new Document("to", "slot-1")),
                event("robot-started", "slot-0", 1, "10.0.0.1:7700").append("robot", "c2"));
        List<String> lines = rows(CliRun.against(db, "events", "--robot", "c1"));
        assertEquals(3, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).endsWith("robot c1 started"), lines.get(0));
        assertTrue(
                lines.get(1).endsWith("robot c1 failed, restarting: java.lang.IllegalStateException: boom"),
                lines.get(1));
        assertTrue(lines.get(2).endsWith("robot c1 moved to slot-1"), lines.get(2));
    }

    @Test
    void followPrintsNewEventsUntilCtrlC() throws Exception {
        record(event("claimed", "slot-0", 1, "10.0.0.1:7700"));
        try (ChildJvm follow = StandbyProcess.start(
                dir, "events-follow", "events", "--follow", "--mongo", TestMongo.uri(), "--db", db)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> follow.output().contains("claimed"));
            record(event("released", "slot-0", 1, "10.0.0.1:7700"));
            await().atMost(Duration.ofSeconds(60)).until(() -> follow.output().contains("released"));
            follow.signal("INT");
            assertEquals(130, follow.awaitExit(Duration.ofSeconds(30)));
            String output = follow.output();
            assertEquals(1, output.lines().filter(l -> l.endsWith("claimed")).count(), "printed once:\n" + output);
            assertFalse(output.contains("\tat ") || output.contains(" ERROR ["), output);
        }
    }
}
