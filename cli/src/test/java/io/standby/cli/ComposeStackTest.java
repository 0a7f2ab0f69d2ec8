package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Container;
import java.io.File;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.ExecInContainerPattern;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * docker/compose.yaml as docker/README.md starts it, where a Docker engine and {@code docker compose} answer (skipped
 * elsewhere): the image is built, the replica set started, three of the four nodes own the three slots. A {@code docker
 * kill} of an owner is taken over by the standby; a {@code docker stop} of another owner releases its slot and exits 0.
 * Facts come from the slot documents, read with mongosh inside {@code mongo1}. Minutes, not seconds: the first build
 * downloads the dependencies, and the kill waits out the compose file's 20 s lease. The nodes' host ports are free
 * ones; the network is the file's own 172.28.0.0/24, so a stack of docker/README.md that is up at the time makes this
 * fail.
 */
@Testcontainers(disabledWithoutDocker = true)
class ComposeStackTest {

    private static final Duration UP = Duration.ofMinutes(15);
    private static final Duration WAIT = Duration.ofMinutes(2);
    /** Prefix of the compose project's name; Testcontainers appends a random part. */
    private static final String PROJECT = "standbycomposetest";

    private static final Map<Integer, String> NODES =
            Map.of(7701, "node1", 7702, "node2", 7703, "node3", 7704, "node4");

    @Test
    void threeNodesOwnTheSlotsAKilledOwnerIsTakenOverAndAStoppedOneHandsOverAndExitsZero() throws Exception {
        List<Integer> hostPorts = StandbyProcess.freePorts(4);
        File file = HouseRulesTest.root().resolve("docker/compose.yaml").toFile();
        try (ComposeContainer compose = new ComposeContainer(PROJECT, List.of(file))
                .withBuild(true)
                .withRemoveVolumes(true)
                .withStartupTimeout(UP)
                .withEnv("STANDBY_NODE1_PORT", hostPorts.get(0).toString())
                .withEnv("STANDBY_NODE2_PORT", hostPorts.get(1).toString())
                .withEnv("STANDBY_NODE3_PORT", hostPorts.get(2).toString())
                .withEnv("STANDBY_NODE4_PORT", hostPorts.get(3).toString())) {
            // 'up' returns once the robots one-shot could start: the four nodes are healthy by then.
            compose.start();
            await().atMost(WAIT).until(() -> owners(slots()).size() == 3);
            Map<String, Document> before = slots();
            assertEquals(3, before.size(), "slots-init made three slots: " + before.keySet());
            assertEquals(
                    3, owners(before).values().stream().distinct().count(), "three nodes, one slot each: " + before);

            // docker kill: no hand-over; the standby takes the slot once the lease has run out.
            Document victim = before.get("slot-0");
            String killed = NODES.get(port(victim));
            DockerClient docker = DockerClientFactory.lazyClient();
            docker.killContainerCmd(container(killed).getId()).exec();
            await().atMost(WAIT)
                    .until(() ->
                            slots().get("slot-0").get("epoch", Number.class).longValue()
                                            > victim.get("epoch", Number.class).longValue()
                                    && slots().get("slot-0").get("port") != null);
            Document takenOver = slots().get("slot-0");
            assertNotEquals(port(victim), port(takenOver), "taken over by another node: " + takenOver);

            // docker stop: the owner of slot-1 releases it (no standby is left to take it) and exits 0.
            Document owned = slots().get("slot-1");
            String stopped = NODES.get(port(owned));
            docker.stopContainerCmd(container(stopped).getId()).withTimeout(30).exec();
            InspectContainerResponse after = container(stopped);
            assertFalse(after.getState().getRunning(), stopped + " stopped");
            Document released = slots().get("slot-1");
            assertEquals(0L, after.getState().getExitCodeLong(), stopped + " exits 0 after its hand-over: " + released);
            assertEquals(null, released.get("port"), "released by " + stopped + ": " + released);
            assertEquals(
                    owned.get("epoch", Number.class).longValue(),
                    released.get("epoch", Number.class).longValue(),
                    "a graceful release keeps the epoch: " + released);
        }
    }

    /** The slot documents by id, as mongosh inside mongo1 prints them (relaxed extended JSON). */
    private static Map<String, Document> slots() throws Exception {
        String script =
                "print(EJSON.stringify({slots: db.slots.find({}, {ip: 1, port: 1, epoch: 1, time: 1}).toArray()}, "
                        + "{relaxed: true}))";
        var result = ExecInContainerPattern.execInContainer(
                DockerClientFactory.lazyClient(),
                container("mongo1"),
                "mongosh",
                "--quiet",
                "mongodb://mongo1:27017,mongo2:27017,mongo3:27017/standby?replicaSet=rs0",
                "--eval",
                script);
        assertEquals(0, result.getExitCode(), result.getStderr());
        Map<String, Document> byId = new LinkedHashMap<>();
        for (Document slot : Document.parse(result.getStdout().strip()).getList("slots", Document.class)) {
            byId.put(slot.getString("_id"), slot);
        }
        return byId;
    }

    private static int port(Document slot) {
        return slot.get("port", Number.class).intValue();
    }

    /** Slot id to owner ip:port, for the owned slots. */
    private static Map<String, String> owners(Map<String, Document> slots) {
        return slots.entrySet().stream()
                .filter(e -> e.getValue().get("port") != null)
                .collect(Collectors.toMap(
                        Map.Entry::getKey,
                        e -> e.getValue().getString("ip") + ":" + e.getValue().get("port")));
    }

    /** The one container of a service of this test's project. */
    private static InspectContainerResponse container(String service) {
        DockerClient docker = DockerClientFactory.lazyClient();
        List<Container> found = docker
                .listContainersCmd()
                .withShowAll(true)
                .withLabelFilter(Map.of("com.docker.compose.service", service))
                .exec()
                .stream()
                .filter(c -> Objects.requireNonNullElse(c.getLabels().get("com.docker.compose.project"), "")
                        .startsWith(PROJECT))
                .toList();
        assertEquals(1, found.size(), "one container of " + service + ": " + found);
        return docker.inspectContainerCmd(found.getFirst().getId()).exec();
    }
}
