package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every bad input: one line on standard error naming the bad value, no stack trace, the database exactly as it was, and
 * picocli's exit codes: 2 when what was typed is wrong (found by the parser or by a later check), 1 when a well-formed
 * command failed.
 *
 * <p>Each case runs the command in this JVM, so an input wrongly accepted by {@code node} would start a node that never
 * returns; the timeout, on a thread of its own, turns that into a failure instead of a hung build.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class BadInputTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;
    private List<SlotView> before;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
        new SlotTable(admin).init(2);
        before = new SlotTable(admin).list();
    }

    @AfterEach
    void nothingChanged() {
        List<SlotView> after = new SlotTable(admin).list();
        assertEquals(
                before.stream()
                        .map(s -> s.id() + "/" + s.epoch() + "/" + s.owner())
                        .toList(),
                after.stream()
                        .map(s -> s.id() + "/" + s.epoch() + "/" + s.owner())
                        .toList(),
                "the slots changed");
    }

    private CliRun run(String... args) {
        return CliRun.against(db, args);
    }

    /** What was typed is wrong: exit code 2. */
    private static void assertUsageError(CliRun run, String... mentions) {
        assertRejected(2, run, mentions);
    }

    /** A well-formed command that failed: exit code 1. */
    private static void assertFailed(CliRun run, String... mentions) {
        assertRejected(1, run, mentions);
    }

    private static void assertRejected(int exitCode, CliRun run, String... mentions) {
        assertEquals(exitCode, run.exitCode(), () -> "exit code, for: " + run.err());
        String line = run.errorLine();
        assertFalse(line.contains("Exception") || line.contains("\tat "), "no stack trace: " + line);
        for (String mention : mentions) {
            assertTrue(line.contains(mention), "'" + line + "' should mention " + mention);
        }
    }

    @ParameterizedTest(name = "node {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--ip 999.1.1.1 --port 7700                          | 999.1.1.1",
                "--ip localhost --port 7700                          | localhost",
                "--ip 0.0.0.0 --port 7700                            | 0.0.0.0",
                "--ip 127.0.0.1 --port 0                             | 0",
                "--ip 127.0.0.1 --port 70000                         | 70000",
                "--ip 127.0.0.1 --port seven                         | seven",
                "--ip 127.0.0.1 --port 7700 --lease 3s               | --lease 3s",
                "--ip 127.0.0.1 --port 7700 --heartbeat 0ms          | --heartbeat 0ms",
                "--ip 127.0.0.1 --port 7700 --poll 20s               | --poll 20s",
                "--ip 127.0.0.1 --port 7700 --lease 5x               | 5x",
                "--ip 127.0.0.1 --port 7700 --max-slots 0            | --max-slots 0",
                "--ip 127.0.0.1 --port 7700 --turbo                  | --turbo",
                "--port 7700                                         | --ip",
                "--ip 127.0.0.1 --port 7700 --plugins /nonexistent   | /nonexistent",
                "--ip 127.0.0.1 --port 7700 --stop-timeout 0ms       | --stop-timeout 0ms",
                "--ip 127.0.0.1 --port 7700 --stop-timeout soon      | soon",
                "--ip 127.0.0.1 --port 7700 --watch-lease 50ms       | --watch-lease 50ms",
                "--ip 127.0.0.1 --port 7700 --watch-lease 4s         | --watch-lease 4s",
                "--ip 127.0.0.1 --port 7700 --watch-port 70000       | --watch-port 70000",
                "--ip 127.0.0.1 --port 7700 --watch-links maybe      | maybe",
            })
    void nodeOptions(String args, String mention) {
        assertUsageError(run(("node " + args).trim().split("\\s+")), mention);
    }

    @Test
    void nodePortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliRun run = run("node", "--ip", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()));
            assertFailed(run, "127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void aNodeWhoseIdentityHoldsALiveLeaseFromAnotherHostRefusesToStart() throws Exception {
        int port = StandbyProcess.freePorts(1).getFirst();
        // The same ip:port on another machine owns slot-0 right now.
        admin.database()
                .getCollection("slots")
                .updateOne(
                        com.mongodb.client.model.Filters.eq("_id", "slot-0"),
                        com.mongodb.client.model.Updates.combine(
                                com.mongodb.client.model.Updates.set("ip", "127.0.0.1"),
                                com.mongodb.client.model.Updates.set("port", port),
                                com.mongodb.client.model.Updates.set("instance", "99-abcd@elsewhere:1:1"),
                                com.mongodb.client.model.Updates.set("lease", 60_000L),
                                com.mongodb.client.model.Updates.inc("epoch", 1L),
                                com.mongodb.client.model.Updates.currentDate("time")));
        before = new SlotTable(admin).list();

        CliRun run = run("node", "--ip", "127.0.0.1", "--port", Integer.toString(port));

        assertFailed(run, "elsewhere:1:1");
        assertTrue(run.errorLine().contains("127.0.0.1:" + port), run.errorLine());
    }

    /** The port is taken and the database unreachable: only a check made before both can name the directory. */
    @Test
    void pluginsAreCheckedBeforeTheAddressIsBoundOrTheDatabaseContacted() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliRun run = CliRun.of(
                    "node",
                    "--ip",
                    "127.0.0.1",
                    "--port",
                    Integer.toString(taken.getLocalPort()),
                    "--plugins",
                    "/nonexistent",
                    "--mongo",
                    "mongodb://127.0.0.1:" + TestPorts.free());
            assertUsageError(run, "invalid --plugins '/nonexistent': not a directory");
        }
    }

    @Test
    void unreachableMongoFailsWithinSecondsNamingHostAndPort() {
        String nobody = "127.0.0.1:" + TestPorts.free();
        long start = System.nanoTime();
        CliRun run = CliRun.of("slots", "list", "--mongo", "mongodb://" + nobody);
        assertFailed(run, nobody);
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(15).toNanos(), "gave up within seconds");
    }

    @Test
    void unreachableMongoStopsANodeBeforeItStarts() {
        String nobody = "127.0.0.1:" + TestPorts.free();
        CliRun run = CliRun.of(
                "node",
                "--ip",
                "127.0.0.1",
                "--port",
                Integer.toString(TestPorts.free()),
                "--mongo",
                "mongodb://" + nobody);
        assertFailed(run, nobody);
    }

    @Test
    void aServerOlderThanMongoDb42IsRefusedWithOneLineNamingTheMinimum() {
        de.bwaldvogel.mongo.backend.memory.MemoryBackend old = new de.bwaldvogel.mongo.backend.memory.MemoryBackend();
        old.version(de.bwaldvogel.mongo.ServerVersion.MONGO_4_0);
        try (TestMongo.Embedded server = TestMongo.startEmbedded(old)) {
            assertFailed(
                    CliRun.of(
                            "node",
                            "--ip",
                            "127.0.0.1",
                            "--port",
                            Integer.toString(TestPorts.free()),
                            "--mongo",
                            server.uri()),
                    "127.0.0.1:" + server.port(),
                    "4.0",
                    "MongoDB 4.2 or newer");
            assertFailed(CliRun.of("slots", "list", "--mongo", server.uri()), "MongoDB 4.2 or newer");
        }
    }

    @Test
    void aReplicaSetUriAgainstAStandaloneServerSaysJustThat() {
        try (TestMongo.Embedded server =
                TestMongo.startEmbedded(new de.bwaldvogel.mongo.backend.memory.MemoryBackend())) {
            CliRun run = CliRun.of("slots", "list", "--mongo", server.uri() + "/?replicaSet=rs0");
            assertFailed(
                    run,
                    "the URI names replica set 'rs0'",
                    "127.0.0.1:" + server.port() + " is a standalone server",
                    "remove replicaSet=rs0");
        }
    }

    @ParameterizedTest(name = "--mongo {0}")
    @CsvSource({"not-a-uri", "http://127.0.0.1:27017", "mongodb://"})
    void malformedMongoUri(String uri) {
        assertUsageError(CliRun.of("slots", "list", "--mongo", uri), uri);
    }

    @Test
    void badDatabaseName() {
        assertUsageError(CliRun.of("slots", "list", "--mongo", TestMongo.uri(), "--db", "a/b"), "a/b");
    }

    @ParameterizedTest(name = "slots init --count {0}")
    @CsvSource({"0", "-3", "many"})
    void initCountMustBePositive(String count) {
        assertUsageError(run("slots", "init", "--count", count), count);
    }

    @Test
    void releasingAnUnknownSlot() {
        assertFailed(run("slots", "release", "slot-9"), "slot-9");
    }

    @Test
    void anUnknownCommandIsNamedWithTheClosestOne() {
        CliRun run = run("slot", "list");
        assertUsageError(run, "unknown command 'slot'", "did you mean 'slots'?");
        assertUsageError(run("bogus"), "unknown command 'bogus'", "see 'standby --help'");
        assertUsageError(run(""), "unknown command ''");
    }

    @Test
    void unknownSlotsSubcommand() {
        assertUsageError(run("slots", "destroy"), "unknown command 'slots destroy'");
    }

    @Test
    void mongoCommandRejectsABadPort() {
        assertUsageError(CliRun.of("mongo", "--port", "70000", "--in-memory"), "70000");
    }

    @Test
    void mongoCommandRejectsAPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertFailed(
                    CliRun.of("mongo", "--port", Integer.toString(taken.getLocalPort()), "--in-memory"),
                    "127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void mongoCommandRejectsDataAndInMemoryTogether() {
        assertUsageError(CliRun.of("mongo", "--data", "x", "--in-memory"), "--in-memory");
    }
}
