package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.SlotTable;
import io.standby.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The user's JVM options beside the launcher's own (issue 36): a one-shot command runs from the launcher's class cache
 * (an AOT cache on JDK 25+, a CDS archive before), and the JVM refuses to start when a second class-data option comes
 * with it, wherever that option comes from. Runs {@code ./standby} on the jar {@code mvn package} built, so failsafe
 * runs it after the package phase.
 */
class LauncherJavaOptionsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** What the launcher says, once, when it leaves its cache out. */
    private static final String NOTICE = "running without the launcher's class cache";

    @TempDir
    Path dir;

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    /**
     * A variable the JVM would read, a class-data or AOT option in it, and the file that option makes the JVM write (""
     * for none): a written file shows that the user's option took effect, not only that the JVM started.
     */
    static Stream<Arguments> classDataOptions() {
        return Stream.of(
                Arguments.of("STANDBY_JAVA_OPTS", "-Xshare:off", ""),
                Arguments.of("STANDBY_JAVA_OPTS", "-Xmx128m -Xshare:auto", ""),
                Arguments.of(
                        "STANDBY_JAVA_OPTS",
                        "-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=DIR/own.jsa",
                        "own.jsa"),
                Arguments.of(
                        "STANDBY_JAVA_OPTS", "-XX:AOTMode=record -XX:AOTConfiguration=DIR/own.aotconf", "own.aotconf"),
                Arguments.of("JAVA_TOOL_OPTIONS", "-Xshare:off", ""),
                Arguments.of("JDK_JAVA_OPTIONS", "-XX:SharedArchiveFile=DIR/none.jsa", ""),
                Arguments.of("_JAVA_OPTIONS", "-Xshare:auto", ""));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("classDataOptions")
    void aClassDataOptionOfTheUserRunsWithoutTheLaunchersCache(String variable, String options, String writes)
            throws Exception {
        String value = options.replace("DIR", dir.toString());

        ChildJvm run = StandbyProcess.launch(dir, "version", Map.of(variable, value), "--version");

        assertEquals(0, run.awaitExit(WAIT), run.output());
        assertTrue(run.output().contains(versionLine()), run.output());
        assertEquals(1, run.output().split(NOTICE, -1).length - 1, "said once:\n" + run.output());
        if (!writes.isEmpty()) {
            assertTrue(Files.size(dir.resolve(writes)) > 0, "the user's own archive, written:\n" + run.output());
        }
    }

    @Test
    void withoutOneACommandRunsFromTheCacheThatTheFirstCommandReadingTheDatabaseRecorded() throws Exception {
        Path cache = HouseRulesTest.root().resolve("cli/target/standby.aot");
        Files.deleteIfExists(cache);
        new SlotTable(nodes.admin()).init(1);

        // --version loads none of the driver's classes: a cache recorded from it would lack most of what a command
        // that reads the database loads, and it is not written.
        ChildJvm version = StandbyProcess.launch(dir, "version", "--version");
        assertEquals(0, version.awaitExit(WAIT), version.output());
        assertFalse(Files.exists(cache), "no cache recorded from --version");

        ChildJvm first = StandbyProcess.launch(dir, "first", slotsList());
        assertEquals(0, first.awaitExit(WAIT), first.output());
        assertTrue(Files.exists(cache), "recorded from the first command that read the database");

        // Class loading, logged: an option of the user's that is not about class data, so the cache stays.
        ChildJvm run = StandbyProcess.launch(
                dir, "logged", Map.of("STANDBY_JAVA_OPTS", "-Xlog:class+load=info:stdout"), slotsList());

        assertEquals(0, run.awaitExit(WAIT), run.output());
        assertTrue(run.output().contains("slot-0"), run.output());
        assertFalse(run.output().contains(NOTICE), run.output());
        // The JDK's own archive has none of these classes: they came from the launcher's.
        for (String loaded : List.of(StandbyCli.class.getName(), "com.mongodb.client.internal.MongoClientImpl")) {
            assertTrue(
                    run.output().contains(loaded + " source: shared objects file"),
                    loaded + " from the cache:\n" + run.output());
        }
    }

    private String[] slotsList() {
        return new String[] {"slots", "list", "--mongo", nodes.uri(), "--db", nodes.db()};
    }

    /** What {@code --version} prints on this JDK, the one the launcher is given. */
    private static String versionLine() throws Exception {
        return new StandbyCli.Version().getVersion()[0];
    }
}
