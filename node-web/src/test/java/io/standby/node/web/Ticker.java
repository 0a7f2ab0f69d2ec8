package io.standby.node.web;

import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import java.time.Duration;
import org.bson.Document;

/** Checkpoints a growing {@code ticks} every 50 ms. */
final class Ticker implements RobotFactory {
    @Override
    public String type() {
        return "ticker";
    }

    @Override
    public Robot create(Document config) {
        return ctx -> {
            long ticks = ctx.state().get("ticks", 0L);
            while (ctx.sleep(Duration.ofMillis(50))) {
                ctx.checkpoint(new Document("ticks", ++ticks));
            }
        };
    }
}
