package io.standby.cli;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The plugin example (samples/plugin-example) as a user deploys it: its jar, built by Maven on its own,
 * copied into a directory that real {@code standby node} processes get as {@code --plugins}. Its robot
 * type is on no class path of this test: only the jar brings it.
 */
class PluginProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private String db;
    private StandbyDatabase admin;
    private final List<StandbyProcess> nodes = new ArrayList<>();

    @BeforeEach
    void setUp(TestInfo test) {
        db = TestMongo.freshDatabase(test.getTestMethod().orElseThrow().getName());
        admin = StandbyDatabase.connect(TestMongo.uri(), db, Duration.ofSeconds(10), null);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (StandbyProcess node : nodes) {
            node.close();
        }
        admin.database().drop();
        admin.close();
    }

    /** The jar Maven built for samples/plugin-example, as the cli's pom copies it before the tests. */
    static Path pluginExampleJar() {
        String built = System.getProperty("standby.test.plugin-example");
        if (built == null || !Files.isRegularFile(Path.of(built))) {
            throw new IllegalStateException("the plugin example's jar is not at '" + built
                    + "': run the tests with Maven (mvn verify -pl cli -am), which builds and copies it");
        }
        return Path.of(built);
    }

    private StandbyProcess node(int port, Path plugins) throws Exception {
        StandbyProcess node = StandbyProcess.start(dir, "node-" + port, "node", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                "--heartbeat", "300ms", "--lease", "2s", "--poll", "300ms", "--plugins", plugins.toString(),
                "--mongo", TestMongo.uri(), "--db", db);
        nodes.add(node);
        return node;
    }

    private Document robot(String id) {
        // A projection: the embedded server copies the document, so no torn read of a concurrent checkpoint.
        Document doc = admin.database().getCollection("robots").find(Filters.eq("_id", id))
                .projection(Projections.include("state", "node", "context")).first();
        return doc == null ? new Document() : doc;
    }

    private long greetings(String id) {
        return robot(id).get("context", new Document()).get("greetings") instanceof Number n ? n.longValue() : -1;
    }

    @Test
    void aRobotTypeFromAPluginJarRunsOnNodesStartedWithPluginsAndSurvivesATakeover() throws Exception {
        assertTrue(RobotTypes.builtIn().get("hello").isEmpty(), "the plugin is on no class path of this test");
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Files.copy(pluginExampleJar(), plugins.resolve("hello-robot.jar"));

        assertEquals(0, CliRun.against(db, "slots", "init", "--count", "1").exitCode());
        List<Integer> ports = StandbyProcess.freePorts(2);
        StandbyProcess first = node(ports.get(0), plugins);
        first.awaitOutput("Robot types:", WAIT);
        assertTrue(first.output().matches("(?s).*Robot types: [^\\n]*\\bhello\\b.*"), first.output());
        // Added without --allow-unknown-type: a live node says it runs 'hello'.
        await().atMost(WAIT).until(() -> CliRun.against(db, "robot", "add", "h1", "--type", "hello",
                "--config", "name=plugins", "--config", "intervalMs=200").exitCode() == 0);

        await().atMost(WAIT).until(() -> "RUNNING".equals(robot("h1").getString("state")) && greetings("h1") >= 3);
        assertEquals("127.0.0.1:" + ports.get(0), robot("h1").getString("node"));
        first.awaitOutput("Hello, plugins (#3)", WAIT);

        // A second node with the same plugin directory takes the robot over from its last checkpoint.
        StandbyProcess second = node(ports.get(1), plugins);
        second.awaitOutput("Robot types:", WAIT);
        first.kill9();
        long before = greetings("h1");
        await().atMost(WAIT).until(() -> ("127.0.0.1:" + ports.get(1)).equals(robot("h1").getString("node"))
                && "RUNNING".equals(robot("h1").getString("state")) && greetings("h1") > before);
        assertTrue(second.output().contains("Greeting plugins from #"), second.output());
        long resumedFrom = Long.parseLong(second.output().replaceAll("(?s).*Greeting plugins from #(\\d+).*", "$1"));
        assertTrue(resumedFrom >= 2 && resumedFrom <= before + 1,
                "went on from a checkpoint (#" + resumedFrom + "), not from the start; last seen " + before);
    }
}
