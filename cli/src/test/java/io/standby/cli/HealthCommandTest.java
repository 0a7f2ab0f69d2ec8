package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.standby.slot.SlotTable;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestMongo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code standby health} as a container's health check runs it: a real node configured by flags, by STANDBY_* variables
 * or by a {@code --config} file is reported healthy by a {@code standby health} process given the same configuration,
 * and unhealthy (exit 1, one line) once the node is killed or stopped. What a node that is up but not ready answers, a
 * node that does not answer, and bad input, against small HTTP servers of this test.
 */
class HealthCommandTest {

    /** Generous: a JVM starts in a second or two, more on a loaded machine. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final List<String> TIMING = List.of("--heartbeat", "500ms", "--lease", "3s", "--poll", "200ms");

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    /** A {@code standby health} process; its exit code and what it printed. */
    private record Health(int exitCode, String output) {}

    private Health health(Map<String, String> environment, String... args) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of("health"));
        command.addAll(List.of(args));
        try (ChildJvm run = StandbyProcess.start(
                nodes.dir(), "health-" + System.nanoTime(), List.of(), environment, command.toArray(String[]::new))) {
            int code = run.awaitExit(WAIT);
            return new Health(code, run.output().strip());
        }
    }

    /** Waits, on the node's own answer, until it is ready: health is then asked about a settled fact. */
    private static void awaitReady(ChildJvm node, int port) {
        HttpClient client = HttpClient.newHttpClient();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!node.isAlive()) {
                throw new AssertionError("the node exited:\n" + node.output());
            }
            try {
                return client.send(
                                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready"))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200;
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static void assertUnhealthy(Health health, int port, String why) {
        assertEquals(1, health.exitCode(), health.output());
        assertEquals(1, health.output().lines().count(), "one line:\n" + health.output());
        assertTrue(
                health.output().startsWith("standby: unhealthy: http://127.0.0.1:" + port + "/ready: " + why),
                health.output());
    }

    @Test
    void aNodeConfiguredByFlagsIsHealthyByItsOwnCommandLineUntilItIsKilled() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        int port = StandbyProcess.freePorts(1).getFirst();
        ChildJvm node = nodes.node(port, TIMING.toArray(String[]::new));
        awaitReady(node, port);

        // The node's whole command line, as docker/healthcheck passes PID 1's: the other settings are ignored.
        List<String> own = new java.util.ArrayList<>(List.of("--ip", "127.0.0.1", "--port", Integer.toString(port)));
        own.addAll(TIMING);
        own.addAll(List.of("--mongo", nodes.uri(), "--db", nodes.db()));
        Health healthy = health(Map.of(), own.toArray(String[]::new));
        assertEquals(0, healthy.exitCode(), healthy.output());
        assertEquals("healthy: 127.0.0.1:" + port + " is ready", healthy.output());

        node.kill9();
        assertUnhealthy(health(Map.of(), own.toArray(String[]::new)), port, "cannot connect");
    }

    @Test
    void aNodeConfiguredByTheEnvironmentIsHealthyByTheSameEnvironmentUntilItStops() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        int port = StandbyProcess.freePorts(1).getFirst();
        Map<String, String> environment = Map.of(
                "STANDBY_IP", "127.0.0.1",
                "STANDBY_PORT", Integer.toString(port),
                "STANDBY_MONGO_URI", nodes.uri(),
                "STANDBY_DB", nodes.db(),
                "STANDBY_POLL", "200ms");
        try (ChildJvm node = StandbyProcess.start(nodes.dir(), "node-env-" + port, List.of(), environment, "node")) {
            awaitReady(node, port);

            Health healthy = health(environment);
            assertEquals(0, healthy.exitCode(), healthy.output());
            assertEquals("healthy: 127.0.0.1:" + port + " is ready", healthy.output());

            // Without the variables there is nothing to ask: said, not "healthy" as the old script had it.
            Health nowhere = health(Map.of());
            assertEquals(2, nowhere.exitCode(), nowhere.output());
            assertTrue(nowhere.output().startsWith("standby: no node to ask: give the node's --ip and --port"));
            assertEquals(1, nowhere.output().lines().count(), nowhere.output());

            assertEquals(0, node.terminate(WAIT), node.output());
            assertUnhealthy(health(environment), port, "cannot connect");
        }
    }

    @Test
    void aNodeConfiguredByAConfigFileIsHealthyByTheSameFile() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        int port = StandbyProcess.freePorts(1).getFirst();
        Path config = nodes.dir().resolve("node.properties");
        Files.write(
                config,
                List.of(
                        "ip=127.0.0.1",
                        "port=" + port,
                        "mongo=" + TestMongo.uri(),
                        "db=" + nodes.db(),
                        "heartbeat=500ms",
                        "lease=3s",
                        "poll=200ms"));
        try (ChildJvm node =
                StandbyProcess.start(nodes.dir(), "node-file-" + port, "node", "--config", config.toString())) {
            awaitReady(node, port);
            Health healthy = health(Map.of(), "--config", config.toString());
            assertEquals(0, healthy.exitCode(), healthy.output());
            assertEquals("healthy: 127.0.0.1:" + port + " is ready", healthy.output());
        }
    }

    @Test
    void aNodeThatIsUpButNotReadyIsUnhealthyWithTheReasonItGives() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ready", exchange -> {
            byte[] body = "{\"ready\": false, \"node\": \"127.0.0.1:1\", \"reason\": \"stopped\"}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(503, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            int port = server.getAddress().getPort();
            CliRun notReady = CliRun.of("health", "--url", "http://127.0.0.1:" + port);
            assertEquals(1, notReady.exitCode(), notReady.err());
            assertEquals(
                    "standby: unhealthy: http://127.0.0.1:" + port + "/ready: not ready: stopped",
                    notReady.errorLine());

            CliRun elsewhere = CliRun.of("health", "--url", "http://127.0.0.1:" + port + "/status");
            assertEquals(1, elsewhere.exitCode(), elsewhere.err());
            assertTrue(elsewhere.errorLine().endsWith("/status: HTTP 404 (is it a standby node?)"), elsewhere.err());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aNodeThatDoesNotAnswerWithinTheTimeoutIsUnhealthy() throws Exception {
        // Connects are accepted by the kernel (the backlog) and never answered.
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = silent.getLocalPort();
            long start = System.nanoTime();
            CliRun run = CliRun.of("health", "--url", "http://127.0.0.1:" + port, "--timeout", "300ms");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertEquals(1, run.exitCode(), run.err());
            assertEquals(
                    "standby: unhealthy: http://127.0.0.1:" + port + "/ready: no answer within 300ms", run.errorLine());
            assertTrue(took.compareTo(Duration.ofSeconds(20)) < 0, "gave up at the timeout, not later: " + took);
        }
    }

    @Test
    void badInputIsOneLineNamingTheBadValue() {
        for (String[] args : List.of(
                new String[] {"--url", "not a url"},
                new String[] {"--url", "ftp://127.0.0.1:7700"},
                new String[] {"--url", "http://"},
                new String[] {"--url", "http://127.0.0.1:7700", "--timeout", "soon"},
                new String[] {"--url", "http://127.0.0.1:7700", "--timeout", "0s"},
                new String[] {"--ip", "127.0.0.1", "--port", "70000"},
                new String[] {"--ip", "127.0.0.1", "--port", "many"},
                new String[] {"--ip", "127.0.0.1", "--port", "7700", "--tiemout"})) {
            String[] command = new String[args.length + 1];
            command[0] = "health";
            System.arraycopy(args, 0, command, 1, args.length);
            CliRun run = CliRun.of(command);
            String bad = args[args.length - 1];
            assertEquals(2, run.exitCode(), String.join(" ", args) + ": " + run.err());
            String line = run.errorLine();
            assertTrue(line.startsWith("standby: ") && line.contains(bad), String.join(" ", args) + ": " + line);
            assertFalse(line.contains("Exception"), line);
        }
    }
}
