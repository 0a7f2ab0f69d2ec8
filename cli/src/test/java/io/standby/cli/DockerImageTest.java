package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The image as docker/README.md builds it, where a Docker engine answers (skipped elsewhere): a one-shot {@code slots
 * init}, then one node against a {@code mongo:7} container. The node owns the slot, carries the sample plugins, runs as
 * a non-root user that owns its working directory, turns healthy by its HEALTHCHECK, and on {@code docker stop}
 * releases its slot (SIGTERM reaches the JVM) and exits 0.
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerImageTest {

    private static final Duration WAIT = Duration.ofMinutes(2);
    /** The tag this test builds. */
    private static final String TAG = "standby-test:latest";

    /**
     * The image, built by the docker CLI as docker/README.md builds it: the Dockerfile's Maven cache mounts need
     * BuildKit, and Testcontainers' own builder is the legacy one, which refuses {@code RUN --mount}. BuildKit also
     * reads docker/Dockerfile.dockerignore, which keeps build output out of the context.
     */
    private static DockerImageName image() throws Exception {
        Path root = HouseRulesTest.root();
        Path log = Files.createTempFile("standby-docker-build", ".log");
        ProcessBuilder build = new ProcessBuilder("docker", "build", "-f", "docker/Dockerfile", "-t", TAG, ".")
                .directory(root.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        build.environment().put("DOCKER_BUILDKIT", "1");
        Process process;
        try {
            process = build.start();
        } catch (IOException e) {
            Assumptions.abort("a Docker engine answers, but there is no docker command to build with: " + e);
            throw e;
        }
        assertTrue(process.waitFor(30, TimeUnit.MINUTES), "docker build within 30 minutes");
        List<String> lines = Files.readAllLines(log);
        assertEquals(
                0,
                process.exitValue(),
                "docker build failed:\n"
                        + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        return DockerImageName.parse(TAG);
    }

    @Test
    void theImageRunsANodeAgainstMongo7() throws Exception {
        DockerImageName image = image();
        try (Network network = Network.newNetwork();
                MongoDBContainer mongo = new MongoDBContainer(DockerFilesTest.MONGO_IMAGE)
                        .withNetwork(network)
                        .withNetworkAliases("mongo")) {
            mongo.start();
            String inside = "mongodb://mongo:27017/?directConnection=true";

            try (GenericContainer<?> init = new GenericContainer<>(image)
                    .withNetwork(network)
                    .withCommand("slots", "init", "--count", "1", "--mongo", inside, "--db", "standby")
                    .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(WAIT))) {
                init.start();
            }

            try (GenericContainer<?> node = new GenericContainer<>(image)
                            .withNetwork(network)
                            .withCommand(
                                    "node",
                                    "--ip",
                                    "auto",
                                    "--port",
                                    "7700",
                                    "--heartbeat",
                                    "1s",
                                    "--lease",
                                    "3s",
                                    "--poll",
                                    "500ms",
                                    "--plugins",
                                    "/opt/standby/plugins",
                                    "--mongo",
                                    inside,
                                    "--db",
                                    "standby")
                            .waitingFor(Wait.forLogMessage("(?s).*Robot types: counter, hello, ledger, poller.*", 1)
                                    .withStartupTimeout(WAIT));
                    StandbyDatabase db = StandbyDatabase.connect(
                            mongo.getReplicaSetUrl(), "standby", Duration.ofSeconds(10), null)) {
                node.start();

                await().atMost(WAIT)
                        .until(() -> new SlotTable(db)
                                .get("slot-0")
                                .map(SlotView::owner)
                                .isPresent());
                SlotView owned = new SlotTable(db).get("slot-0").orElseThrow();
                assertEquals(7700, owned.owner().port());
                assertNotEquals(
                        "0", node.execInContainer("id", "-u").getStdout().strip(), "not root");
                assertEquals(
                        node.execInContainer("id", "-un").getStdout().strip(),
                        node.execInContainer("stat", "-c", "%U", "/opt/standby")
                                .getStdout()
                                .strip(),
                        "the user owns its working directory");
                assertEquals(
                        0, node.execInContainer("touch", "/opt/standby/written").getExitCode(), "and can write there");
                assertNotEquals(
                        0,
                        node.execInContainer("touch", "/opt/standby/app/written")
                                .getExitCode(),
                        "the jars' directory is root's, read-only to the node");
                Document registered = db.database()
                        .getCollection("nodes")
                        .find(Filters.eq("_id", owned.owner().toString()))
                        .projection(Projections.include("types"))
                        .first();
                assertEquals(
                        List.of("counter", "hello", "ledger", "poller"), registered.getList("types", String.class));

                await().atMost(WAIT)
                        .until(() -> "healthy"
                                .equals(node.getCurrentContainerInfo()
                                        .getState()
                                        .getHealth()
                                        .getStatus()));

                node.getDockerClient()
                        .stopContainerCmd(node.getContainerId())
                        .withTimeout(30)
                        .exec();
                SlotView after = new SlotTable(db).get("slot-0").orElseThrow();
                assertTrue(after.released(), "released on docker stop: " + after);
                assertEquals(
                        0,
                        node.getCurrentContainerInfo().getState().getExitCodeLong(),
                        "exit 0 after the hand-over:\n" + node.getLogs());
            }
        }
    }
}
