package io.standby.node.web;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.standby.node.StandbyNode;
import io.standby.node.StandbyNodeBuilder;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalDouble;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The meters on a registry other than Prometheus', and both extensions on a node without a listener: the meters are the
 * same, {@code /metrics} is served only for Prometheus' registry, and nothing is bound with {@code withoutEndpoint()}.
 */
class StandbyMetricsTest {

    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    @BeforeEach
    void setUp() {
        StandbyDatabase admin = database.connection();
        new SlotTable(admin).init(1);
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("t1", "ticker", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
    }

    private StandbyNodeBuilder builder(int port, SimpleMeterRegistry registry) {
        return StandbyNode.builder()
                .mongo(TestMongo.uri())
                .database(database.name())
                .node("127.0.0.1", port)
                .timing(TIMING)
                .stopTimeout(Duration.ofSeconds(2))
                .robots(new Ticker())
                .extension(NodeWeb.pages())
                .extension(StandbyMetrics.of(registry));
    }

    @Test
    void anyRegistryGetsTheMetersAndOnlyPrometheusGetsMetricsServed() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        int port = TestPorts.free();
        try (StandbyNode ignored = builder(port, registry).start()) {
            await().atMost(WAIT)
                    .until(() -> registry.get(StandbyMeters.CHECKPOINTS).timer().count() >= 2
                            && registry.get(StandbyMeters.ROBOTS)
                                            .tag("state", "running")
                                            .gauge()
                                            .value()
                                    == 1);
            assertEquals(1.0, registry.get(StandbyMeters.SLOTS_OWNED).gauge().value());
            assertEquals(
                    1.0,
                    registry.get(StandbyMeters.CLAIMS)
                            .tag("outcome", "won")
                            .counter()
                            .count());
            assertEquals(1.0, remembered(registry, "leases"), "its one lease");
            assertEquals(1.0, remembered(registry, "slot_runs"), "its one slot's run");
            assertEquals(1.0, remembered(registry, "robot_runs"), "its one robot's run");
            HttpClient http = HttpClient.newHttpClient();
            assertEquals(404, get(http, port, "/metrics").statusCode(), "not Prometheus' registry: no /metrics");
            assertEquals(200, get(http, port, "/status").statusCode());
        }
    }

    @Test
    void withoutAnEndpointTheMetersStillWorkAndNothingIsBound() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        int port = TestPorts.free();
        try (StandbyNode node = builder(port, registry).withoutEndpoint().start()) {
            await().atMost(WAIT)
                    .until(() -> node.leases().size() == 1
                            && registry.get(StandbyMeters.SLOTS_OWNED).gauge().value() == 1);
            new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
        }
        assertEquals(1.0, registry.get(StandbyMeters.RELEASES).counter().count(), "the graceful release, counted");
    }

    /**
     * Two nodes at a heartbeat of 500 ms, where watch links are on by default (a watch lease of 500 ms): each counts
     * the link on its side, and the standby counts its death when the owner goes.
     */
    @Test
    void watchLinksAreCountedOnBothSides() throws Exception {
        SlotTiming linked = SlotTiming.of(Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofMillis(200));
        SimpleMeterRegistry ownerMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry standbyMeters = new SimpleMeterRegistry();
        StandbyNode owner =
                builder(TestPorts.free(), ownerMeters).timing(linked).start();
        try (StandbyNode standby =
                builder(TestPorts.free(), standbyMeters).timing(linked).start()) {
            await().atMost(WAIT)
                    .until(() -> owner.leases().size() == 1
                            && standbyMeters
                                            .get(StandbyMeters.WATCH_LINKS)
                                            .tag("side", "standby")
                                            .gauge()
                                            .value()
                                    == 1
                            && ownerMeters
                                            .get(StandbyMeters.WATCH_LINKS)
                                            .tag("side", "owner")
                                            .gauge()
                                            .value()
                                    == 1);
            assertEquals(1.0, remembered(standbyMeters, "standby_links"), "its link to the owner");
            assertEquals(
                    0.0,
                    ownerMeters
                            .get(StandbyMeters.WATCH_REFUSED)
                            .functionCounter()
                            .count());
            // On a loaded machine a link can end and open again before the close: counted too, so count from here.
            double endsBefore = linkEnds(standbyMeters);
            owner.close();
            await().atMost(WAIT)
                    .until(() -> linkEnds(standbyMeters) > endsBefore
                            && standby.leases().size() == 1);
            assertEquals(
                    0.0,
                    standbyMeters
                            .get(StandbyMeters.WATCH_TAKEOVERS)
                            .functionCounter()
                            .count(),
                    "released gracefully: claimed as a free slot, not taken over by the link");
        } finally {
            owner.close();
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static double remembered(SimpleMeterRegistry meters, String map) {
        return meters.get(StandbyMeters.REMEMBERED).tag("map", map).gauge().value();
    }

    private static double linkEnds(SimpleMeterRegistry meters) {
        return meters.get(StandbyMeters.WATCH_LINK_ENDS)
                .tag("side", "standby")
                .functionCounter()
                .count();
    }
}
