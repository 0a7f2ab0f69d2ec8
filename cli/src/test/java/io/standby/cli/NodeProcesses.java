package io.standby.cli;

import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

/**
 * The node processes of one test, on a fresh database of the test server. Register it as a field with
 * {@code @RegisterExtension}. It keeps the nodes' logs in a directory that stays when the test fails, and then prints
 * every node's output, the slots, the robots and whatever the test added with {@link #onFailure}; afterwards it stops
 * every process it started and drops the database.
 */
final class NodeProcesses implements BeforeEachCallback, AfterTestExecutionCallback, AfterEachCallback {

    private final Map<Integer, ChildJvm> nodes = new LinkedHashMap<>();
    private final List<Runnable> onFailure = new ArrayList<>();
    private final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);
    private Path dir;
    private boolean failed;

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        String test = context.getRequiredTestMethod().getName();
        database.beforeEach(context);
        dir = Files.createTempDirectory("standby-" + test + "-");
    }

    /** The test's database name, for {@code --db}. */
    String db() {
        return database.name();
    }

    /** The test's database, for {@code --mongo}. */
    String uri() {
        return database.uri();
    }

    /** A connection to the test's database, for facts: slot documents, robots, events. */
    StandbyDatabase admin() {
        return database.connection();
    }

    /** Where the nodes' logs go, and anything else of the test's; kept when it fails. */
    Path dir() {
        return dir;
    }

    /**
     * Starts {@code standby node --ip 127.0.0.1 --port PORT ARGS --mongo URI --db DB} with {@code jvmArgs}.
     *
     * @throws IllegalStateException if a node of this test still runs on that port
     */
    ChildJvm node(int port, List<String> jvmArgs, String... args) throws IOException {
        return start(port, database.uri(), (name, command) -> StandbyProcess.start(dir, name, jvmArgs, command), args);
    }

    /** As {@link #node(int, String...)}, reaching the test's database at {@code mongoUri} (a proxy in front of it). */
    ChildJvm nodeThrough(String mongoUri, int port, String... args) throws IOException {
        return start(port, mongoUri, (name, command) -> StandbyProcess.start(dir, name, List.of(), command), args);
    }

    /** As {@link #node(int, String...)}, started through the repository's launcher ({@link ChildJvm#launch}). */
    ChildJvm launch(int port, String... args) throws IOException {
        return start(port, database.uri(), (name, command) -> StandbyProcess.launch(dir, name, command), args);
    }

    private interface Starter {
        ChildJvm start(String name, String... command) throws IOException;
    }

    private ChildJvm start(int port, String mongoUri, Starter starter, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("node", "--ip", "127.0.0.1", "--port", Integer.toString(port)));
        command.addAll(List.of(args));
        command.addAll(List.of("--mongo", mongoUri, "--db", database.name()));
        ChildJvm earlier = nodes.get(port);
        if (earlier != null && earlier.isAlive()) {
            throw new IllegalStateException("port " + port + " is still held by a node of this test");
        }
        ChildJvm node = starter.start("node-" + port + "-" + System.nanoTime(), command.toArray(String[]::new));
        nodes.put(port, node);
        return node;
    }

    ChildJvm node(int port, String... args) throws IOException {
        return node(port, List.of(), args);
    }

    /** The node last started on {@code port}. */
    ChildJvm get(int port) {
        return nodes.get(port);
    }

    /** Something more to print if the test fails, after the nodes, slots and robots. */
    void onFailure(Runnable dump) {
        onFailure.add(dump);
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        if (context.getExecutionException().isEmpty()
                || context.getExecutionException().get() instanceof TestAbortedException) {
            return;
        }
        failed = true;
        nodes.forEach((port, node) ->
                System.out.println("----- node " + port + " (pid " + node.pid() + ")\n" + node.output()));
        new SlotTable(admin()).list().forEach(slot -> System.out.println("----- slot " + slot));
        admin().database()
                .getCollection("robots")
                .find()
                .forEach(robot -> System.out.println("----- robot " + robot.toJson()));
        onFailure.forEach(Runnable::run);
        System.out.println("----- the nodes' logs are kept in " + dir);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            for (ChildJvm node : nodes.values()) {
                node.close();
            }
        } finally {
            database.afterEach(context);
            if (!failed) {
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(file);
                    }
                }
            }
        }
    }
}
