package io.standby.samples.plugin;

import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import java.time.Duration;
import org.bson.Document;

/**
 * Makes {@code hello} robots. Listed in {@code META-INF/services/io.standby.robot.RobotFactory}, which is how a node
 * started with {@code --plugins DIR} finds it in this jar. It needs a public no-argument constructor (the default one
 * here).
 *
 * <p>Config: {@code name} (required), {@code intervalMs} (default 1000).
 */
public final class HelloRobotFactory implements RobotFactory {

    public static final String TYPE = "hello";

    @Override
    public String type() {
        return TYPE;
    }

    /** Run by {@code standby robot add} where a node with this plugin is live: a bad config is refused there. */
    @Override
    public void validate(Document config) {
        name(config);
        interval(config);
    }

    @Override
    public Robot create(Document config) {
        return new HelloRobot(name(config), interval(config));
    }

    private static String name(Document config) {
        if (!(config.get("name") instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException("name is required: --config name=...");
        }
        return name;
    }

    private static Duration interval(Document config) {
        Object value = config.get("intervalMs");
        if (value == null) {
            return Duration.ofSeconds(1);
        }
        long ms;
        try {
            ms = value instanceof Number n ? n.longValue() : Long.parseLong(value.toString());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("intervalMs '" + value + "' is not a number");
        }
        if (ms < 1) {
            throw new IllegalArgumentException("intervalMs " + ms + " must be at least 1");
        }
        return Duration.ofMillis(ms);
    }
}
