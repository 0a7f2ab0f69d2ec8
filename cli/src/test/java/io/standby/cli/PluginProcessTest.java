package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.standby.robot.runtime.RobotTypes;
import io.standby.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The plugin example (samples/plugin-example) as a user deploys it: its jar, built by Maven on its own, copied into a
 * directory that real {@code standby node} processes get as {@code --plugins}. Its robot type is on no class path of
 * this test: only the jar brings it.
 */
class PluginProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    /** The jar Maven built for samples/plugin-example, as the cli's pom copies it before the tests. */
    static Path pluginExampleJar() {
        String built = System.getProperty("standby.test.plugin-example");
        if (built == null || !Files.isRegularFile(Path.of(built))) {
            throw new IllegalStateException("the plugin example's jar is not at '" + built
                    + "': run the tests with Maven (mvn verify -pl cli -am), which builds and copies it");
        }
        return Path.of(built);
    }

    private ChildJvm node(int port, Path plugins) throws Exception {
        return nodes.node(
                port, "--heartbeat", "300ms", "--lease", "2s", "--poll", "300ms", "--plugins", plugins.toString());
    }

    private Document robot(String id) {
        // A projection: the embedded server copies the document, so no torn read of a concurrent checkpoint.
        Document doc = nodes.admin()
                .database()
                .getCollection("robots")
                .find(Filters.eq("_id", id))
                .projection(Projections.include("state", "node", "context"))
                .first();
        return doc == null ? new Document() : doc;
    }

    private long greetings(String id) {
        return robot(id).get("context", new Document()).get("greetings") instanceof Number n ? n.longValue() : -1;
    }

    @Test
    void aRobotTypeFromAPluginJarRunsOnNodesStartedWithPluginsAndSurvivesATakeover() throws Exception {
        assertTrue(RobotTypes.builtIn().get("hello").isEmpty(), "the plugin is on no class path of this test");
        Path plugins = Files.createDirectories(nodes.dir().resolve("plugins"));
        Files.copy(pluginExampleJar(), plugins.resolve("hello-robot.jar"));

        assertEquals(
                0, CliRun.against(nodes.db(), "slots", "init", "--count", "1").exitCode());
        List<Integer> ports = StandbyProcess.freePorts(2);
        ChildJvm first = node(ports.get(0), plugins);
        first.awaitOutput("Robot types:", WAIT);
        assertTrue(first.output().matches("(?s).*Robot types: [^\\n]*\\bhello\\b.*"), first.output());
        // Added without --allow-unknown-type: a live node says it runs 'hello'.
        await().atMost(WAIT)
                .until(() -> CliRun.against(
                                        nodes.db(),
                                        "robot",
                                        "add",
                                        "h1",
                                        "--type",
                                        "hello",
                                        "--config",
                                        "name=plugins",
                                        "--config",
                                        "intervalMs=200")
                                .exitCode()
                        == 0);

        await().atMost(WAIT).until(() -> "RUNNING".equals(robot("h1").getString("state")) && greetings("h1") >= 3);
        assertEquals("127.0.0.1:" + ports.get(0), robot("h1").getString("node"));
        first.awaitOutput("Hello, plugins (#3)", WAIT);

        // A second node with the same plugin directory takes the robot over from its last checkpoint.
        ChildJvm second = node(ports.get(1), plugins);
        second.awaitOutput("Robot types:", WAIT);
        first.kill9();
        long before = greetings("h1");
        await().atMost(WAIT)
                .until(() -> ("127.0.0.1:" + ports.get(1)).equals(robot("h1").getString("node"))
                        && "RUNNING".equals(robot("h1").getString("state"))
                        && greetings("h1") > before);
        assertTrue(second.output().contains("Greeting plugins from #"), second.output());
        long resumedFrom = Long.parseLong(second.output().replaceAll("(?s).*Greeting plugins from #(\\d+).*", "$1"));
        assertTrue(
                resumedFrom >= 2 && resumedFrom <= before + 1,
                "went on from a checkpoint (#" + resumedFrom + "), not from the start; last seen " + before);
    }
}
