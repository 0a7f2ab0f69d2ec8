package io.standby.samples.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.standby.robot.RobotContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A robot is tested without a node or a database: give it a context that records its checkpoints and lets it sleep a
 * given number of times. (The cli module's PluginProcessTest loads this jar into real nodes.)
 */
class HelloRobotTest {

    /** Sleeps return at once, {@code rounds} times; then the robot is asked to finish. */
    static final class CountingContext implements RobotContext {
        final List<Document> checkpoints = new ArrayList<>();
        private final Document state;
        private int rounds;

        CountingContext(Document state, int rounds) {
            this.state = state;
            this.rounds = rounds;
        }

        @Override
        public String robotId() {
            return "hello-1";
        }

        @Override
        public String slotId() {
            return "slot-0";
        }

        @Override
        public long epoch() {
            return 7;
        }

        @Override
        public Document config() {
            return new Document();
        }

        @Override
        public Document state() {
            return new Document(state);
        }

        @Override
        public void checkpoint(Document newState) {
            checkpoints.add(newState);
        }

        @Override
        public boolean stopRequested() {
            return rounds <= 0;
        }

        @Override
        public boolean sleep(Duration duration) {
            return rounds-- > 0;
        }

        @Override
        public Logger log() {
            return LoggerFactory.getLogger("robot.hello");
        }
    }

    @Test
    void greetsAndCheckpointsEveryRoundFromWhereTheLastOwnerStopped() throws Exception {
        CountingContext ctx = new CountingContext(new Document("greetings", 5L), 3);
        new HelloRobotFactory()
                .create(new Document("name", "world").append("intervalMs", 10))
                .run(ctx);
        assertEquals(
                List.of(6L, 7L, 8L),
                ctx.checkpoints.stream().map(c -> c.getLong("greetings")).toList());
        assertEquals(7L, ctx.checkpoints.getLast().getLong("epoch"));
    }

    @Test
    void aBadConfigIsRefusedBeforeTheRobotIsAdded() {
        HelloRobotFactory factory = new HelloRobotFactory();
        assertEquals(
                "name is required: --config name=...",
                assertThrows(IllegalArgumentException.class, () -> factory.validate(new Document()))
                        .getMessage());
        assertEquals(
                "intervalMs 0 must be at least 1",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> factory.validate(new Document("name", "x").append("intervalMs", 0)))
                        .getMessage());
        factory.validate(new Document("name", "x").append("intervalMs", "250"));
    }
}
