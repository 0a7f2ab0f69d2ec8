package io.standby.samples.spring;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.standby.slot.Lease;
import io.standby.slot.SlotListener;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The sample as {@code java -jar} runs it (its in-memory database, a real web server on a free port): the robot greets,
 * Actuator shows the node over HTTP, and a shutdown hands the slot over while the web server still answers (the node's
 * lifecycle stops before the web server's).
 */
class SpringBootSampleTest {

    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** Asks the application's own web server for the node's endpoint while the node releases its slot. */
    @Configuration(proxyBeanMethods = false)
    static class ReleaseProbe {
        static final List<String> answers = new CopyOnWriteArrayList<>();

        @Bean
        SlotListener releaseProbe(Environment environment) {
            return new SlotListener() {
                @Override
                public void releasing(Lease lease) {
                    try {
                        answers.add(lease.slotId() + " "
                                + get(environment.getProperty("local.server.port"), "/actuator/standby")
                                        .statusCode());
                    } catch (Exception e) {
                        answers.add(lease.slotId() + " " + e);
                    }
                }
            };
        }
    }

    /** The sample runs on the Spring Boot the build names (4.0.x, or 4.1.x with -P spring-boot-4.1). */
    @Test
    void itRunsOnTheSpringBootTheBuildNames() {
        String named = System.getProperty("standby.spring-boot.version");
        assumeTrue(named != null, "run by Maven, which names the version");
        assertEquals(named, SpringBootVersion.getVersion());
    }

    @Test
    void theRobotGreetsActuatorShowsTheNodeAndTheSlotIsHandedOverBeforeTheWebServerStops() throws Exception {
        ConfigurableApplicationContext app = new SpringApplicationBuilder(SpringBootSample.class, ReleaseProbe.class)
                .run(
                        "--server.port=0",
                        "--server.address=127.0.0.1",
                        "--standby.port=" + TestPorts.free(),
                        "--standby.heartbeat=200ms",
                        "--standby.lease=1500ms",
                        "--standby.poll=200ms",
                        "--standby.stop-timeout=2s");
        String port = app.getEnvironment().getProperty("local.server.port");
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(port, "/actuator/standby").body().contains("\"slot-0\":[\"hello\"]"));
            HttpResponse<String> health = get(port, "/actuator/health/standby");
            assertEquals(200, health.statusCode(), health.body());
            assertTrue(
                    health.body().contains("\"status\":\"UP\"") && health.body().contains("\"lease\":\"valid\""),
                    health.body());
            // The README's advice, followed by the sample: a node's health decides readiness, never liveness.
            HttpResponse<String> readiness = get(port, "/actuator/health/readiness");
            assertEquals(200, readiness.statusCode(), readiness.body());
            assertTrue(readiness.body().contains("\"standby\""), readiness.body());
            HttpResponse<String> liveness = get(port, "/actuator/health/liveness");
            assertEquals(200, liveness.statusCode(), liveness.body());
            assertFalse(liveness.body().contains("standby"), liveness.body());
        } finally {
            app.close();
        }
        assertEquals(
                List.of("slot-0 200"),
                ReleaseProbe.answers,
                "the web server answered while the node released its slot");
    }

    private static HttpResponse<String> get(String port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
