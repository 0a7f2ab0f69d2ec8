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
import java.util.Set;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * The image as docker/README.md builds it, where a Docker engine answers (skipped elsewhere): a one-shot {@code slots
 * init}, then one node against a {@code mongo:7} container. The node owns the slot, carries the sample plugins, runs as
 * a non-root user that owns its working directory, turns healthy by its HEALTHCHECK, and on {@code docker stop}
 * releases its slot (SIGTERM reaches the JVM) and exits 0.
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerImageTest {

    private static final Duration WAIT = Duration.ofMinutes(2);
    /** What docker/Dockerfile.dockerignore leaves out of the build context. */
    private static final Set<String> LEFT_OUT = Set.of("target", "standby-data", ".git");

    /**
     * The repository as the build context, without build output (the legacy builder ignores Dockerfile.dockerignore).
     */
    private static ImageFromDockerfile image() throws IOException {
        Path root = DockerFilesTest.root();
        ImageFromDockerfile image =
                new ImageFromDockerfile("standby-test", true).withDockerfilePath("docker/Dockerfile");
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .filter(f -> root.relativize(f).getNameCount() > 0)
                    .filter(f -> {
                        for (Path part : root.relativize(f)) {
                            if (LEFT_OUT.contains(part.toString())) {
                                return false;
                            }
                        }
                        return !f.toString().endsWith(".log");
                    })
                    .forEach(f -> image.withFileFromPath(root.relativize(f).toString(), f));
        }
        return image;
    }

    @Test
    void theImageRunsANodeAgainstMongo7() throws Exception {
        ImageFromDockerfile image = image();
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
