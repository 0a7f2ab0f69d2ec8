package io.standby.samples;

import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import java.time.Duration;
import org.bson.Document;

/**
 * {@code counter}: every {@code intervalMs} (config, default 1000) adds 1 to {@code count} in its context and
 * checkpoints. A takeover is visible in mongosh: {@code count} keeps growing from where the last owner's checkpoint
 * left it, and never goes back.
 */
public final class CounterRobot implements Robot {

    public static final String TYPE = "counter";

    private final Duration interval;

    public CounterRobot(Duration interval) {
        this.interval = interval;
    }

    @Override
    public void run(RobotContext context) {
        long count = context.state().get("count", Number.class) instanceof Number n ? n.longValue() : 0L;
        context.log().info("Counting from {} at epoch {}", count, context.epoch());
        while (context.sleep(interval)) {
            count++;
            context.checkpoint(new Document("count", count).append("epoch", context.epoch()));
        }
    }

    /** Registered in META-INF/services, so every node knows the type. */
    public static final class Factory implements RobotFactory {
        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public void validate(Document config) {
            interval(config);
        }

        @Override
        public Robot create(Document config) {
            return new CounterRobot(interval(config));
        }

        private static Duration interval(Document config) {
            Object value = config.get("intervalMs");
            long ms;
            if (value == null) {
                ms = 1000;
            } else if (value instanceof Number number) {
                ms = number.longValue();
            } else {
                try {
                    ms = Long.parseLong(value.toString());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("intervalMs '" + value + "' is not a number");
                }
            }
            if (ms < 1) {
                throw new IllegalArgumentException("intervalMs " + ms + " must be at least 1");
            }
            return Duration.ofMillis(ms);
        }
    }
}
