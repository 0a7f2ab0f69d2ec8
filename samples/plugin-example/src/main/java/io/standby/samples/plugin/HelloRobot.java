package io.standby.samples.plugin;

import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import java.time.Duration;
import org.bson.Document;

/**
 * {@code hello}: greets {@code name} every {@code intervalMs} and counts its greetings in its context, so that a node
 * taking it over goes on counting from the last checkpoint.
 *
 * <p>The shape every robot has: restore from {@link RobotContext#state()}, then loop on {@link RobotContext#sleep},
 * which returns false when the robot should finish (a graceful stop, a move); checkpoint after each unit of work. An
 * interrupt means the slot was lost: return at once (a blocking call throws, and {@code sleep} returns false). A
 * checkpoint that throws {@link io.standby.robot.FencedException} means the same: let it propagate.
 */
public final class HelloRobot implements Robot {

    private final String name;
    private final Duration interval;

    HelloRobot(String name, Duration interval) {
        this.name = name;
        this.interval = interval;
    }

    @Override
    public void run(RobotContext ctx) {
        long greetings = ctx.state().get("greetings") instanceof Number n ? n.longValue() : 0;
        ctx.log().info("Greeting {} from #{} at epoch {} of {}", name, greetings + 1, ctx.epoch(), ctx.slotId());
        while (ctx.sleep(interval)) {
            greetings++;
            ctx.log().info("Hello, {} (#{})", name, greetings);
            ctx.checkpoint(new Document("greetings", greetings).append("epoch", ctx.epoch()));
        }
    }
}
