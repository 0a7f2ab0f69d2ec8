package io.standby.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.runtime.RobotListener;
import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The core's side of the node's extensions: its address bound and {@code /health} served with none; each extension
 * opened before the bind, told of every event before the application, and given the listener once the node runs; a
 * start an extension fails leaves no slot held and no address bound.
 */
class NodeExtensionTest {

    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private StandbyDatabase admin;

    @BeforeEach
    void setUp() {
        admin = database.connection();
        new SlotTable(admin).init(1);
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("t1", "ticker", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
    }

    private StandbyNodeBuilder builder(int port) {
        return StandbyNode.builder()
                .mongo(TestMongo.uri())
                .database(database.name())
                .node("127.0.0.1", port)
                .timing(TIMING)
                .stopTimeout(Duration.ofSeconds(2))
                .robots(new Ticker());
    }

    @Test
    void withoutExtensionsANodeBindsItsAddressAndServesHealthAlone() throws Exception {
        int port = TestPorts.free();
        try (StandbyNode node = builder(port).start()) {
            await().atMost(WAIT)
                    .until(() -> node.leases().size() == 1 && node.running().containsKey("slot-0"));
            HttpResponse<String> health = get(port, "/health");
            assertEquals(200, health.statusCode());
            assertEquals(
                    "application/json",
                    health.headers().firstValue("Content-Type").orElseThrow());
            Document body = Document.parse(health.body());
            assertEquals("127.0.0.1:" + port, body.getString("node"));
            assertEquals(
                    "slot-0", body.getList("slots", Document.class).getFirst().getString("slot"));
            assertEquals(List.of("t1"), body.get("robots", Document.class).getList("slot-0", String.class));
            for (String path : List.of("/", "/ready", "/status", "/metrics", "/health/more")) {
                assertEquals(404, get(port, path).statusCode(), path + " needs an extension");
            }
        }
        new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
    }

    @Test
    void extensionsOpenBeforeTheBindHearEveryEventFirstAndServeOnceTheNodeRuns() throws Exception {
        int port = TestPorts.free();
        List<String> acquired = new CopyOnWriteArrayList<>();
        AtomicReference<String> addressAtOpen = new AtomicReference<>();
        AtomicInteger commands = new AtomicInteger();
        AtomicInteger firstHeard = new AtomicInteger();
        AtomicInteger secondHeard = new AtomicInteger();
        AtomicReference<String> duplicate = new AtomicReference<>();
        NodeExtension first = config -> {
            addressAtOpen.set(free(config) ? "free" : "bound");
            return new NodeHooks() {
                @Override
                public void configure(com.mongodb.MongoClientSettings.Builder client) {
                    client.addCommandListener(new CommandListener() {
                        @Override
                        public void commandStarted(CommandStartedEvent event) {
                            commands.incrementAndGet();
                        }
                    });
                }

                @Override
                public SlotListener slotListener() {
                    return recorder("first", acquired);
                }

                @Override
                public RobotListener robotListener() {
                    return new RobotListener() {
                        @Override
                        public void checkpointed(String robotId, Duration latency) {
                            firstHeard.incrementAndGet();
                            throw new IllegalStateException("a listener that throws");
                        }
                    };
                }

                @Override
                public void started(StartedNode node) {
                    NodeEndpoint endpoint = node.endpoint().orElseThrow();
                    endpoint.route(
                            "/extra",
                            () -> NodeEndpoint.Response.text(
                                    "text/plain", node.config().node() + " " + node.state()));
                    try {
                        endpoint.json("/health", Document::new);
                    } catch (IllegalStateException e) {
                        duplicate.set(e.getMessage());
                    }
                }
            };
        };
        NodeExtension second = config -> new NodeHooks() {
            @Override
            public SlotListener slotListener() {
                return recorder("second", acquired);
            }

            @Override
            public RobotListener robotListener() {
                return new RobotListener() {
                    @Override
                    public void checkpointed(String robotId, Duration latency) {
                        secondHeard.incrementAndGet();
                    }
                };
            }
        };
        try (StandbyNode node = builder(port)
                .extension(first)
                .extension(second)
                .listener(recorder("application", acquired))
                .start()) {
            await().atMost(WAIT).until(() -> acquired.size() == 3 && secondHeard.get() >= 2);
            assertEquals(List.of("first", "second", "application"), acquired);
            assertEquals("free", addressAtOpen.get(), "opened before the node bound its address");
            assertTrue(commands.get() > 0, "the node's own connections carry the extension's client settings");
            assertTrue(firstHeard.get() >= 1, "the first robot listener threw, and the second still heard");
            assertEquals("the node's endpoint serves /health already", duplicate.get());
            HttpResponse<String> extra = get(port, "/extra");
            assertEquals(200, extra.statusCode());
            assertEquals("127.0.0.1:" + port + " OWNER", extra.body());
            assertEquals(200, get(port, "/health").statusCode());
            assertFalse(free(node.config()), "bound while the node runs");
        }
    }

    @Test
    void aStartAnExtensionFailsReleasesTheSlotAndTheAddress() throws Exception {
        int port = TestPorts.free();
        NodeExtension failing = config -> new NodeHooks() {
            @Override
            public void started(StartedNode node) {
                await().atMost(WAIT).until(() -> node.leases().size() == 1);
                throw new IllegalStateException("the extension cannot serve");
            }
        };
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> builder(port).extension(failing).start());
        assertEquals("the extension cannot serve", e.getMessage());
        SlotView slot = new SlotTable(admin).get("slot-0").orElseThrow();
        assertTrue(slot.released(), "the slot it had claimed is released: " + slot);
        new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
    }

    private static boolean free(NodeConfig config) {
        try (ServerSocket ignored = new ServerSocket(
                config.node().port(), 1, InetAddress.getByName(config.node().ip()))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static SlotListener recorder(String name, List<String> acquired) {
        return new SlotListener() {
            @Override
            public void acquired(Lease lease) {
                acquired.add(name);
            }
        };
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
