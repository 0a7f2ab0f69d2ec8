package io.standby.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.standby.node.StandbyNode;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A whole Spring Boot application with the starter, on the test database: its robot bean runs and checkpoints, Actuator
 * shows it, and closing the application hands the slot over before the application's MongoClient bean closes (the
 * release is written through that very client).
 */
class StandbyApplicationTest {

    /** Counts and checkpoints every 50 ms. */
    static final class Ticker implements Robot {
        @Override
        public void run(RobotContext ctx) {
            long ticks = ctx.state().get("ticks", 0L);
            while (ctx.sleep(Duration.ofMillis(50))) {
                ctx.checkpoint(new Document("ticks", ++ticks));
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        MongoClient mongoClient() {
            return MongoClients.create(TestMongo.uri());
        }

        @Bean
        RobotFactory ticker() {
            return new RobotFactory() {
                @Override
                public String type() {
                    return "ticker";
                }

                @Override
                public Robot create(Document config) {
                    return new Ticker();
                }
            };
        }
    }

    @Test
    void theRobotBeanRunsActuatorShowsItAndAShutdownHandsTheSlotOver() throws Exception {
        String db = TestMongo.freshDatabase("springApplication");
        try (StandbyDatabase admin = StandbyDatabase.connect(TestMongo.uri(), db, Duration.ofSeconds(10), null)) {
            new SlotTable(admin).init(1);
            RobotTable robots = new RobotTable(admin);
            robots.add(
                    new RobotTable.NewRobot("tick-1", "ticker", "slot-0", 0, 1, new Document()),
                    OptionalDouble.empty());

            ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                    .web(WebApplicationType.NONE)
                    .run(
                            "--standby.ip=127.0.0.1",
                            "--standby.port=" + TestPorts.free(),
                            "--standby.database=" + db,
                            "--standby.heartbeat=200ms",
                            "--standby.lease=1500ms",
                            "--standby.poll=200ms",
                            "--standby.stop-timeout=2s",
                            "--management.endpoints.web.exposure.include=health,standby");
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> ticks(robots) >= 3);
                assertThat(robots.get("tick-1").orElseThrow().state()).isEqualTo(RobotState.RUNNING);
                assertThat(app.getBean("standbyHealthIndicator", HealthIndicator.class)
                                .health(true)
                                .getStatus())
                        .isEqualTo(Status.UP);
                assertThat(app.getBean(StandbyEndpoint.class).node())
                        .containsEntry("robots", Map.of("slot-0", List.of("tick-1")));
                assertThat(app.getBean(StandbyNode.class).running()).isEqualTo(Map.of("slot-0", List.of("tick-1")));
            } finally {
                app.close();
            }

            RobotView after = robots.get("tick-1").orElseThrow();
            assertThat(after.state())
                    .as("the robot checkpointed and waits for the next node")
                    .isEqualTo(RobotState.PENDING);
            assertThat(after.node()).isNull();
            assertThat(new SlotTable(admin).get("slot-0").orElseThrow().released())
                    .as("the slot was released")
                    .isTrue();
            admin.database().drop();
        }
    }

    private static long ticks(RobotTable robots) {
        return robots.get("tick-1").orElseThrow().context().get("ticks", Number.class) instanceof Number n
                ? n.longValue()
                : 0;
    }
}
