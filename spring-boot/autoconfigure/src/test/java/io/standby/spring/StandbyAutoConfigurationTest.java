package io.standby.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.standby.node.StandbyNode;
import io.standby.slot.Lease;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Each condition of the auto-configuration, on a real node against the test database: the runner's context starts the
 * node through its lifecycle, as an application does.
 */
@ExtendWith(OutputCaptureExtension.class)
class StandbyAutoConfigurationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;
    private ApplicationContextRunner runner;
    private int port;

    @BeforeEach
    void setUp() throws IOException {
        db = database.name();
        admin = database.connection();
        new SlotTable(admin).init(1);
        port = TestPorts.free();
        runner = new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(StandbyAutoConfiguration.class, StandbyActuatorAutoConfiguration.class))
                .withPropertyValues(
                        "standby.ip=127.0.0.1",
                        "standby.port=" + port,
                        "standby.database=" + db,
                        "standby.heartbeat=200ms",
                        "standby.lease=1500ms",
                        "standby.poll=200ms",
                        "standby.stop-timeout=2s");
    }

    private static boolean owns(StandbyNode node) {
        return node.leases().size() == 1 && node.notReady().isEmpty();
    }

    @Test
    void withoutAMongoClientBeanTheNodeConnectsToTheUriAndBindsItsProperties() {
        runner.withPropertyValues(
                        "standby.mongo.uri=" + TestMongo.uri(), "standby.max-slots=3", "standby.fast-failover=false")
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(StandbyNode.class)
                            .hasSingleBean(StandbyLifecycle.class)
                            .doesNotHaveBean(MongoClient.class);
                    StandbyNode node = context.getBean(StandbyNode.class);
                    assertThat(node.config().maxSlots()).isEqualTo(3);
                    assertThat(node.config().timing().heartbeat()).isEqualTo(Duration.ofMillis(200));
                    assertThat(node.config().timing().lease()).isEqualTo(Duration.ofMillis(1500));
                    assertThat(context.getBean(StandbyProperties.class).isFastFailover())
                            .isFalse();
                    assertThat(context.getBean(StandbyLifecycle.class).isRunning())
                            .isTrue();
                    await().atMost(WAIT).until(() -> owns(node));
                });
        assertThat(new SlotTable(admin).get("slot-0").orElseThrow().released())
                .as("closing the context released the slot")
                .isTrue();
    }

    @Test
    void theApplicationsMongoClientBeanIsReusedWhenNoUriIsSet() {
        Set<String> databases = ConcurrentHashMap.newKeySet();
        runner.withBean(MongoClient.class, () -> recordingClient(databases)).run(context -> {
            assertThat(context).hasNotFailed();
            await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
            assertThat(databases)
                    .as("the node's commands went through the application's client")
                    .contains(db);
        });
    }

    @Test
    void severalMongoClientsNoneMarkedFailTheStartNamingThemAndHowToMarkOne() {
        runner.withBean("mongoClient", MongoClient.class, () -> MongoClients.create(TestMongo.uri()))
                .withBean("reportingClient", MongoClient.class, () -> MongoClients.create(TestMongo.uri()))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure()).getMessage())
                            .contains("2 MongoClient beans (mongoClient, reportingClient)")
                            .contains("@StandbyMongoClient")
                            .contains("standby.mongo.uri");
                });
    }

    /** Two clients, each recording the databases its commands went to, by bean name. */
    @Configuration(proxyBeanMethods = false)
    static class TwoClients {
        static final Map<String, Set<String>> databases = new ConcurrentHashMap<>();

        @Bean
        MongoClient applicationClient() {
            return recordingClient(databases.computeIfAbsent("applicationClient", k -> ConcurrentHashMap.newKeySet()));
        }

        @Bean
        @StandbyMongoClient
        MongoClient standbyClient() {
            return recordingClient(databases.computeIfAbsent("standbyClient", k -> ConcurrentHashMap.newKeySet()));
        }
    }

    @Test
    void amongSeveralMongoClientsTheOneMarkedForStandbyIsUsed() {
        TwoClients.databases.clear();
        runner.withUserConfiguration(TwoClients.class).run(context -> {
            assertThat(context).hasNotFailed();
            await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
            assertThat(TwoClients.databases.get("standbyClient")).contains(db);
            assertThat(TwoClients.databases.get("applicationClient")).doesNotContain(db);
        });
    }

    @Test
    void amongSeveralMongoClientsAPrimaryOneIsUsed() {
        Set<String> primary = ConcurrentHashMap.newKeySet();
        Set<String> other = ConcurrentHashMap.newKeySet();
        runner.withBean("otherClient", MongoClient.class, () -> recordingClient(other))
                .withBean(
                        "primaryClient",
                        MongoClient.class,
                        () -> recordingClient(primary),
                        bean -> bean.setPrimary(true))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
                    assertThat(primary).contains(db);
                    assertThat(other).doesNotContain(db);
                });
    }

    @Test
    void aUriWinsOverTheApplicationsMongoClientBean() {
        Set<String> databases = ConcurrentHashMap.newKeySet();
        runner.withBean(MongoClient.class, () -> recordingClient(databases))
                .withPropertyValues("standby.mongo.uri=" + TestMongo.uri())
                .run(context -> {
                    await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
                    assertThat(databases).doesNotContain(db);
                });
    }

    @Test
    void theOldNameStandbyMongoIsStillHonouredWithAWarning(CapturedOutput output) {
        Set<String> databases = ConcurrentHashMap.newKeySet();
        runner.withBean(MongoClient.class, () -> recordingClient(databases))
                .withPropertyValues("standby.mongo=" + TestMongo.uri())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(StandbyProperties.class)
                                    .getMongo()
                                    .getUri())
                            .isEqualTo(TestMongo.uri());
                    await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
                    assertThat(databases)
                            .as("the old name's URI won over the application's client, as the new one does")
                            .doesNotContain(db);
                });
        assertThat(output).contains("standby.mongo is deprecated: use standby.mongo.uri");
    }

    @Test
    void theNewNameWinsWhenBothAreSet(CapturedOutput output) {
        runner.withPropertyValues("standby.mongo=mongodb://127.0.0.1:9", "standby.mongo.uri=" + TestMongo.uri())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(StandbyProperties.class)
                                    .getMongo()
                                    .getUri())
                            .isEqualTo(TestMongo.uri());
                    await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
                });
        assertThat(output).contains("standby.mongo is deprecated and ignored: standby.mongo.uri is set");
    }

    @Test
    void withActuatorTheStandbyHealthIsUpWithTheLeasesAndTheEndpointShowsTheSlots() {
        runner.withPropertyValues(
                        "standby.mongo.uri=" + TestMongo.uri(),
                        "management.endpoints.web.exposure.include=health,standby")
                .run(context -> {
                    assertThat(context)
                            .hasSingleBean(StandbyHealthIndicator.class)
                            .hasSingleBean(StandbyEndpoint.class);
                    StandbyNode node = context.getBean(StandbyNode.class);
                    await().atMost(WAIT).until(() -> owns(node));
                    HealthIndicator indicator = context.getBean("standbyHealthIndicator", HealthIndicator.class);
                    Health health = indicator.health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails())
                            .containsEntry("node", node.config().node().toString())
                            .containsEntry("instance", node.config().instance())
                            .containsEntry("state", "OWNER");
                    @SuppressWarnings("unchecked")
                    List<Map<String, Object>> slots =
                            (List<Map<String, Object>>) health.getDetails().get("slots");
                    assertThat(slots)
                            .singleElement()
                            .satisfies(slot -> assertThat(slot)
                                    .containsEntry("slot", "slot-0")
                                    .containsEntry("epoch", 1L)
                                    .containsEntry("lease", "valid"));
                    Map<String, Object> view =
                            context.getBean(StandbyEndpoint.class).node();
                    assertThat(view).containsEntry("ready", true).containsEntry("robots", Map.of("slot-0", List.of()));
                    @SuppressWarnings("unchecked")
                    List<Map<String, Object>> held = (List<Map<String, Object>>) view.get("slots");
                    assertThat(held)
                            .singleElement()
                            .satisfies(slot -> assertThat(slot).containsEntry("slot", "slot-0"));
                });
    }

    @Test
    void theHealthIsDownWithTheReasonBeforeTheNodeStarts() {
        StandbyNode node = StandbyNode.builder().node("127.0.0.1", 1).build();
        Health health = new StandbyHealthIndicator(node, new StandbyLifecycle(node)).health(true);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("reason", "not started");
    }

    /** db-scheduler's convention: a node handing its slots over is taken out of service, not reported broken. */
    @Test
    void theHealthIsOutOfServiceWhileTheNodeStopsAndAfter() {
        AtomicReference<HealthIndicator> indicator = new AtomicReference<>();
        List<Health> whileReleasing = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("standby.mongo.uri=" + TestMongo.uri())
                .withBean(SlotListener.class, () -> new SlotListener() {
                    @Override
                    public void releasing(Lease lease) {
                        whileReleasing.add(indicator.get().health(true));
                    }
                })
                .run(context -> {
                    indicator.set(context.getBean("standbyHealthIndicator", HealthIndicator.class));
                    await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
                    assertThat(indicator.get().health(true).getStatus()).isEqualTo(Status.UP);

                    context.getBean(StandbyLifecycle.class).stop();

                    assertThat(whileReleasing).singleElement().satisfies(health -> {
                        assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                        assertThat(health.getDetails()).containsEntry("reason", "stopping");
                    });
                    Health after = indicator.get().health(true);
                    assertThat(after.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                    assertThat(after.getDetails()).containsEntry("reason", "stopped");
                });
    }

    @Test
    void withoutActuatorThereIsNoHealthNorEndpointButTheNodeRuns() {
        runner.withPropertyValues(
                        "standby.mongo.uri=" + TestMongo.uri(), "management.endpoints.web.exposure.include=standby")
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class, Endpoint.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(StandbyNode.class)
                        .doesNotHaveBean(StandbyHealthIndicator.class)
                        .doesNotHaveBean(StandbyEndpoint.class));
    }

    @Test
    void theEndpointIsLeftOutUnlessExposedAndTheHealthWhenDisabled() {
        runner.withPropertyValues("standby.mongo.uri=" + TestMongo.uri(), "management.health.standby.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(StandbyHealthIndicator.class)
                        .doesNotHaveBean(StandbyEndpoint.class));
    }

    @Test
    void meterRegistrySlotListenerAndRobotFactoryBeansReachTheNode() {
        List<String> acquired = new CopyOnWriteArrayList<>();
        runner.withPropertyValues("standby.mongo.uri=" + TestMongo.uri())
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(SlotListener.class, () -> new SlotListener() {
                    @Override
                    public void acquired(Lease lease) {
                        acquired.add(lease.slotId() + "@" + lease.epoch());
                    }
                })
                .run(context -> {
                    await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
                    assertThat(acquired).containsExactly("slot-0@1");
                    assertThat(context.getBean(MeterRegistry.class)
                                    .get("standby.slots.owned")
                                    .gauge()
                                    .value())
                            .isEqualTo(1.0);
                });
    }

    @Test
    void theNodesOwnEndpointServesItsPagesBesidesHealth() {
        runner.withPropertyValues("standby.mongo.uri=" + TestMongo.uri()).run(context -> {
            await().atMost(WAIT).until(() -> owns(context.getBean(StandbyNode.class)));
            HttpClient http = HttpClient.newHttpClient();
            for (String path : List.of("/health", "/ready", "/status", "/")) {
                HttpResponse<String> response = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(path).isEqualTo(200);
            }
        });
    }

    @Test
    void disabledThereIsNoNode() {
        runner.withPropertyValues("standby.enabled=false", "standby.lease=1ms")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(StandbyNode.class)
                        .doesNotHaveBean(StandbyHealthIndicator.class));
    }

    private static MongoClient recordingClient(Set<String> databases) {
        return MongoClients.create(com.mongodb.MongoClientSettings.builder()
                .applyConnectionString(new com.mongodb.ConnectionString(TestMongo.uri()))
                .addCommandListener(new CommandListener() {
                    @Override
                    public void commandStarted(CommandStartedEvent event) {
                        databases.add(event.getDatabaseName());
                    }
                })
                .build());
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
