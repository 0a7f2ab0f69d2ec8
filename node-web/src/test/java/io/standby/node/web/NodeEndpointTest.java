package io.standby.node.web;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.standby.node.StandbyNode;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node's HTTP endpoint with this module's extensions, over real HTTP, against nodes running on the test database:
 * status codes, content types, what {@code /status} says against the slot documents, and the meters after a claim and
 * after a takeover.
 */
class NodeEndpointTest {

    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> opened = new ArrayList<>();

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
        new SlotTable(admin).init(1);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable resource : opened.reversed()) {
            resource.close();
        }
    }

    @Test
    void aNodeAnswersHealthReadyStatusAndMetricsOverHttp() throws Exception {
        RobotTable robots = new RobotTable(admin);
        for (String id : List.of("t1", "t2")) {
            robots.add(new RobotTable.NewRobot(id, "ticker", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
        }
        int port = TestPorts.free();
        start(TestMongo.uri(), port);

        await().atMost(WAIT)
                .until(() ->
                        robots.list(null).stream().allMatch(r -> r.context().get("ticks", 0L) >= 3));

        HttpResponse<String> health = get(port, "/health");
        assertEquals(200, health.statusCode());
        assertEquals(
                "application/json", health.headers().firstValue("Content-Type").orElseThrow());

        // Ready means a slot read within two polls and a timeout (0.6 s here): on a loaded machine one poll can
        // be late, and /ready then rightly says so for a moment.
        AtomicReference<HttpResponse<String>> ready = new AtomicReference<>();
        await().atMost(WAIT).until(() -> {
            ready.set(get(port, "/ready"));
            return ready.get().statusCode() == 200;
        });
        assertEquals(
                true,
                Document.parse(ready.get().body()).getBoolean("ready"),
                ready.get().body());

        SlotView slot = new SlotTable(admin).get("slot-0").orElseThrow();
        HttpResponse<String> statusResponse = get(port, "/status");
        assertEquals(200, statusResponse.statusCode());
        assertEquals(
                "application/json",
                statusResponse.headers().firstValue("Content-Type").orElseThrow());
        Document status = Document.parse(statusResponse.body());
        Document node = status.get("node", Document.class);
        assertEquals("127.0.0.1:" + port, node.getString("id"));
        assertEquals("OWNER", node.getString("state"));
        Document lease = node.getList("slots", Document.class).getFirst();
        assertEquals("slot-0", lease.getString("slot"));
        assertEquals(slot.epoch(), lease.get("epoch", Number.class).longValue());
        assertTrue(
                lease.get("renewedAgoMs", Number.class).longValue()
                        < TIMING.lease().toMillis(),
                lease.toJson());
        assertEquals(List.of("t1", "t2"), node.get("robots", Document.class).getList("slot-0", String.class));
        Document cluster = status.get("cluster", Document.class);
        Document clusterSlot = cluster.getList("slots", Document.class).getFirst();
        assertEquals(slot.owner().toString(), clusterSlot.getString("owner"));
        assertEquals("127.0.0.1:" + port, clusterSlot.getString("owner"));
        assertEquals(slot.epoch(), clusterSlot.get("epoch", Number.class).longValue());
        assertEquals(
                2,
                cluster.get("robots", Document.class)
                        .get("running", Number.class)
                        .intValue());
        assertTrue(
                cluster.getList("events", Document.class).stream().anyMatch(e -> "claimed".equals(e.getString("type"))),
                cluster.toJson());

        HttpResponse<String> metricsResponse = get(port, "/metrics");
        assertEquals(200, metricsResponse.statusCode());
        assertEquals(
                "text/plain; version=0.0.4; charset=utf-8",
                metricsResponse.headers().firstValue("Content-Type").orElseThrow());
        Metrics metrics = new Metrics(metricsResponse.body());
        assertEquals(1, metrics.value("standby_slots_owned"));
        assertEquals(1, metrics.value("standby_slot_claims_total", "outcome=\"won\""));
        assertEquals(0, metrics.value("standby_slot_claims_total", "outcome=\"conflict\""));
        assertTrue(metrics.value("standby_lease_renewals_seconds_count") >= 1, metrics.text);
        assertEquals(2, metrics.value("standby_robots", "state=\"running\""));
        assertTrue(metrics.value("standby_robot_checkpoints_seconds_count") >= 6, metrics.text);
        assertTrue(metrics.value("standby_robot_write_batches_count") >= 1, metrics.text);
        assertTrue(
                metrics.value("mongodb_driver_commands_seconds_count", "collection=\"slots\"", "command=\"update\"")
                        >= 1,
                metrics.text);
        assertEquals(0, metrics.value("standby_slot_losses_total", "reason=\"fenced\""));

        HttpResponse<String> page = get(port, "/");
        assertEquals(200, page.statusCode());
        assertEquals(
                "text/html; charset=utf-8",
                page.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(page.body().contains("dashboard.js"), page.body());
        assertEquals(
                "text/javascript; charset=utf-8",
                get(port, "/dashboard.js").headers().firstValue("Content-Type").orElseThrow());
        assertEquals(
                "text/css; charset=utf-8",
                get(port, "/dashboard.css").headers().firstValue("Content-Type").orElseThrow());

        assertEquals(404, get(port, "/nowhere").statusCode());
        assertEquals(404, get(port, "/status/more").statusCode());
    }

    @Test
    void aTakeoverShowsInBothNodesMetricsAndTheCutOffOwnerIsNotReady() throws Exception {
        TcpProxy proxy = TcpProxy.to(TestMongo.uri());
        opened.add(proxy);
        int first = TestPorts.free();
        start(proxy.uri(), first);
        await().atMost(WAIT).until(() -> owner().equals("127.0.0.1:" + first));
        int second = TestPorts.free();
        start(TestMongo.uri(), second);
        await().atMost(WAIT)
                .until(() -> Document.parse(get(second, "/ready").body()).getBoolean("ready"));
        assertEquals(
                "STANDBY",
                Document.parse(get(second, "/status").body())
                        .get("node", Document.class)
                        .getString("state"));
        long epoch = new SlotTable(admin).get("slot-0").orElseThrow().epoch();

        proxy.pause();
        await().atMost(WAIT).until(() -> owner().equals("127.0.0.1:" + second));
        assertEquals(epoch + 1, new SlotTable(admin).get("slot-0").orElseThrow().epoch());

        await().atMost(WAIT).untilAsserted(() -> {
            Metrics taker = new Metrics(get(second, "/metrics").body());
            assertEquals(1, taker.value("standby_slots_owned"));
            assertEquals(1, taker.value("standby_slot_claims_total", "outcome=\"won\""));
            assertEquals(1, taker.value("standby_slot_takeover_gap_seconds_count"));
            // Claimed only once the lease had run out by the database's clock.
            assertTrue(
                    taker.value("standby_slot_takeover_gap_seconds_sum")
                            >= TIMING.lease().toMillis() / 1000.0,
                    taker.text);
        });
        await().atMost(WAIT).untilAsserted(() -> {
            Metrics loser = new Metrics(get(first, "/metrics").body());
            assertEquals(0, loser.value("standby_slots_owned"));
            assertEquals(1, loser.value("standby_slot_losses_total", "reason=\"fenced\""));
            // Cut off, it paused its robots at the late mark first, then its lease ended (a slow renewal
            // on a loaded machine may have paused and resumed it before as well).
            assertTrue(loser.value("standby_slot_pauses_total") >= 1, loser.text);
            assertEquals(0, loser.value("standby_slots_paused"), loser.text);
            assertTrue(loser.value("standby_lease_renewal_failures_total") >= 1, loser.text);
        });
        await().atMost(WAIT).untilAsserted(() -> {
            HttpResponse<String> ready = get(first, "/ready");
            assertEquals(503, ready.statusCode(), ready.body());
            assertTrue(
                    Document.parse(ready.body()).getString("reason").startsWith("no answer from the database"),
                    ready.body());
        });
        Document status = Document.parse(get(first, "/status").body());
        assertTrue(
                status.get("node", Document.class)
                        .getList("slots", Document.class)
                        .isEmpty(),
                status.toJson());
        assertFalse(status.get("node", Document.class).getBoolean("ready"));
        assertEquals(null, status.get("cluster"), "its view of the cluster is cut off too");
        assertTrue(status.getString("clusterError").startsWith("cannot read the cluster"), status.toJson());
    }

    private String owner() {
        return String.valueOf(new SlotTable(admin).get("slot-0").orElseThrow().owner());
    }

    private void start(String uri, int port) {
        StandbyNode node = StandbyNode.builder()
                .mongo(uri)
                .database(db)
                .node("127.0.0.1", port)
                .timing(TIMING)
                .stopTimeout(Duration.ofSeconds(2))
                .robotTypes(RobotTypes.of(new Ticker()))
                .extension(NodeWeb.pages())
                .extension(StandbyMetrics.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
                .start();
        opened.add(node);
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Prometheus' text: the value of the one sample with this name and these labels among its own. */
    private record Metrics(String text) {
        double value(String name, String... labels) {
            List<Double> values = text.lines()
                    .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                    .filter(line -> List.of(labels).stream().allMatch(line::contains))
                    .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .toList();
            if (values.isEmpty()) {
                throw new AssertionError("no sample " + name + " " + List.of(labels) + " in\n" + text);
            }
            return values.stream().mapToDouble(Double::doubleValue).sum();
        }
    }
}
