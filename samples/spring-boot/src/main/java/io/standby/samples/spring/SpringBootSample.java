package io.standby.samples.spring;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.spring.StandbyProperties;
import java.time.Duration;
import java.util.OptionalDouble;
import org.bson.Document;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring Boot application that runs a Standby node: the starter does everything from {@code application.properties};
 * the application adds one robot type as a bean. Without {@code standby.mongo.uri} it starts an in-memory
 * MongoDB-compatible server with one slot and one robot, so that {@code java -jar} shows the whole thing on its own.
 */
@SpringBootApplication
public class SpringBootSample {

    public static void main(String[] args) {
        SpringApplication.run(SpringBootSample.class, args);
    }

    /** The application's robot type: every {@code RobotFactory} bean is one. */
    @Bean
    RobotFactory greeter() {
        return new GreeterFactory();
    }

    /** Greets every {@code intervalMs} (default 1000) and remembers how often, across takeovers. */
    public static final class Greeter implements Robot {
        @Override
        public void run(RobotContext ctx) {
            long greeted = ctx.state().get("greeted", 0L);
            while (ctx.sleep(Duration.ofMillis(ctx.config().get("intervalMs", 1000)))) {
                ctx.log().info("hello #{}", ++greeted);
                ctx.checkpoint(new Document("greeted", greeted));
            }
        }
    }

    static final class GreeterFactory implements RobotFactory {
        @Override
        public String type() {
            return "greeter";
        }

        @Override
        public Robot create(Document config) {
            return new Greeter();
        }
    }

    /**
     * Without {@code standby.mongo.uri} (nor the deprecated {@code standby.mongo}): an in-memory database for this
     * process, as the application's {@code MongoClient} bean, which the starter then uses. Operators would create the
     * slot and the robot with {@code standby slots init} and {@code standby robot add}; here the sample does it.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("'${standby.mongo.uri:${standby.mongo:}}' == ''")
    static class InMemoryDatabase {

        @Bean(destroyMethod = "shutdownNow")
        MongoServer mongoServer() {
            MongoServer server = new MongoServer(new MemoryBackend());
            server.bind("127.0.0.1", 0);
            return server;
        }

        @Bean
        MongoClient mongoClient(MongoServer server, StandbyProperties properties) {
            MongoClient client = MongoClients.create(
                    "mongodb://127.0.0.1:" + server.getLocalAddress().getPort());
            StandbyDatabase db = StandbyDatabase.of(client, properties.getDatabase(), Duration.ofSeconds(10));
            new SlotTable(db).init(1);
            new RobotTable(db)
                    .add(
                            new RobotTable.NewRobot(
                                    "hello", "greeter", "slot-0", 0, 1, new Document("intervalMs", 1000)),
                            OptionalDouble.empty());
            return client;
        }
    }
}
