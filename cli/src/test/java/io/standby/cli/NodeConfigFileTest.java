package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestMongo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** {@code standby node --config FILE}: the file's keys are the options, checked like them; the command line wins. */
class NodeConfigFileTest {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private Path file(String... lines) throws Exception {
        Path file = dir.resolve("node-" + System.nanoTime() + ".properties");
        Files.write(file, java.util.List.of(lines));
        return file;
    }

    @Test
    void theFilesSettingsAreCheckedLikeOptionsAndTheCommandLineWins() throws Exception {
        CliRun fromFile =
                CliRun.of("node", "--config", file("ip=999.1.1.1", "port=7700").toString());
        assertEquals(2, fromFile.exitCode(), fromFile.err());
        assertTrue(fromFile.errorLine().contains("invalid --ip '999.1.1.1'"), fromFile.errorLine());

        CliRun overridden = CliRun.of(
                "node",
                "--ip",
                "127.0.0.1",
                "--port",
                "70000",
                "--config",
                file("ip=999.1.1.1").toString());
        assertEquals(2, overridden.exitCode(), overridden.err());
        assertTrue(
                overridden.errorLine().contains("invalid --port 70000"),
                "the command line's --ip won: " + overridden.errorLine());

        Path unknown = file("ip=127.0.0.1", "turbo=yes");
        CliRun bad = CliRun.of("node", "--config", unknown.toString());
        assertEquals(2, bad.exitCode(), bad.err());
        assertTrue(
                bad.errorLine()
                        .contains("invalid --config '" + unknown + "': 'turbo' is not a setting of 'standby node'"),
                bad.errorLine());

        CliRun missing =
                CliRun.of("node", "--config", dir.resolve("nowhere.properties").toString());
        assertEquals(2, missing.exitCode(), missing.err());
        assertTrue(missing.errorLine().contains("nowhere.properties"), missing.errorLine());
    }

    @Test
    void aNodeRunsFromItsFile() throws Exception {
        String db = TestMongo.freshDatabase("nodeConfigFile");
        try (StandbyDatabase admin = StandbyDatabase.connect(TestMongo.uri(), db, Duration.ofSeconds(10), null)) {
            new SlotTable(admin).init(1);
            int port = StandbyProcess.freePorts(1).getFirst();
            Path config = file(
                    "ip=127.0.0.1",
                    "port=" + port,
                    "mongo=" + TestMongo.uri(),
                    "db=" + db,
                    "heartbeat=500ms",
                    "lease=3s",
                    "poll=200ms",
                    "max-slots=2");
            try (ChildJvm node = StandbyProcess.start(dir, "node-" + port, "node", "--config", config.toString())) {
                node.awaitOutput("max slots 2, heartbeat 500ms, lease 3s, poll 200ms", Duration.ofSeconds(60));
                await().atMost(Duration.ofSeconds(60))
                        .until(() ->
                                new SlotTable(admin).get("slot-0").orElseThrow().owner() != null);
                assertEquals(
                        port,
                        new SlotTable(admin).get("slot-0").orElseThrow().owner().port());
            } finally {
                admin.database().drop();
            }
        }
    }
}
