package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.json.JsonParseException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A node configured the way a container configures it, by STANDBY_* variables, as a real process: the variables are
 * used, an option on the command line wins over its variable, a bad value is one line naming the variable, and with
 * {@code STANDBY_LOG_FORMAT=json} every line the node writes is a JSON object.
 */
class NodeEnvironmentProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The product's logging rather than the tests' logback-test.xml, which is on the same class path. */
    private static final List<String> PRODUCT_LOGGING = List.of("-Dstandby.log.builtin=true");

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    @Test
    void aNodeTakesItsSettingsFromTheEnvironmentWithOptionsWinningAndLogsOneJsonObjectALine() throws Exception {
        new SlotTable(nodes.admin()).init(3);
        int port = StandbyProcess.freePorts(1).getFirst();
        Map<String, String> environment = Map.of(
                "STANDBY_IP",
                "127.0.0.1",
                "STANDBY_PORT",
                Integer.toString(port),
                "STANDBY_HEARTBEAT",
                "1s",
                "STANDBY_LEASE",
                "7s",
                "STANDBY_POLL",
                "300ms",
                "STANDBY_MAX_SLOTS",
                "3",
                "STANDBY_LOG_FORMAT",
                "json");
        try (ChildJvm node = StandbyProcess.start(
                nodes.dir(),
                "node-env",
                PRODUCT_LOGGING,
                environment,
                "node",
                "--max-slots",
                "2",
                "--mongo",
                TestMongo.uri(),
                "--db",
                nodes.db())) {
            // --max-slots 2 on the command line wins over STANDBY_MAX_SLOTS=3: two of the three slots.
            await().atMost(WAIT).until(() -> owned().size() == 2 || !node.isAlive());
            assertEquals(2, owned().size(), node.output());
            for (SlotView slot : owned()) {
                assertEquals("127.0.0.1:" + port, slot.owner().toString());
                assertEquals(Duration.ofSeconds(7), slot.lease(), "STANDBY_LEASE");
            }
            HttpResponse<String> health = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(2, Document.parse(health.body()).getInteger("maxSlots"), health.body());
            node.terminate(WAIT);

            List<String> lines = node.output().lines().toList();
            List<Document> logs = lines.stream()
                    .map(line -> {
                        try {
                            return Document.parse(line);
                        } catch (JsonParseException e) {
                            return fail("not a JSON object: '" + line + "'\n" + node.output());
                        }
                    })
                    .toList();
            assertTrue(
                    logs.stream()
                            .anyMatch(log -> "INFO".equals(log.getString("level"))
                                    && log.getString("formattedMessage").startsWith("Running slot-")),
                    node.output());
            for (Document log : logs) {
                assertTrue(
                        log.containsKey("timestamp") && log.containsKey("level") && log.containsKey("loggerName"),
                        log.toJson());
            }
        }
    }

    private List<SlotView> owned() {
        return new SlotTable(nodes.admin())
                .list().stream()
                        .filter(slot -> slot.owner() != null && !slot.expired())
                        .toList();
    }

    @ParameterizedTest
    @CsvSource({"STANDBY_PORT, abc", "STANDBY_LEASE, 5x", "STANDBY_LOG_FORMAT, yaml"})
    void aBadValueInTheEnvironmentIsOneLineNamingTheVariableAndTheValue(String variable, String value)
            throws Exception {
        Map<String, String> environment = new java.util.HashMap<>(
                Map.of("STANDBY_IP", "127.0.0.1", "STANDBY_PORT", Integer.toString(TestPorts.free())));
        environment.put(variable, value);
        try (ChildJvm node = StandbyProcess.start(
                nodes.dir(),
                "bad-" + variable,
                PRODUCT_LOGGING,
                environment,
                "node",
                "--mongo",
                TestMongo.uri(),
                "--db",
                nodes.db())) {
            assertEquals(2, node.awaitExit(WAIT), node.output());
            String output = node.output().strip();
            assertEquals(1, output.lines().count(), output);
            assertTrue(output.startsWith("standby: invalid " + variable + "='" + value + "'"), output);
        }
    }
}
