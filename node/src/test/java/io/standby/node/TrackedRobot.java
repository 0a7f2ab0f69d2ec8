package io.standby.node;

import io.standby.robot.FencedException;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import java.time.Duration;
import org.bson.Document;

/**
 * The test robot: counts like the {@code counter} sample and records every run in a {@link Tracker}. Config:
 * {@code intervalMs} (default 50); {@code checkpoint: false} makes an idle robot that only sleeps; {@code crash:
 * "message"} makes it throw at once; {@code crashOnceAfterMs} makes its first run throw after that long.
 */
final class TrackedRobot implements Robot {

    static final String TYPE = "tracked";

    private final Tracker tracker;
    private final String node;
    private final Document config;

    TrackedRobot(Tracker tracker, String node, Document config) {
        this.tracker = tracker;
        this.node = node;
        this.config = config;
    }

    static RobotFactory factory(Tracker tracker, String node) {
        return new RobotFactory() {
            @Override
            public String type() {
                return TYPE;
            }

            @Override
            public Robot create(Document config) {
                return new TrackedRobot(tracker, node, config);
            }
        };
    }

    @Override
    public void run(RobotContext ctx) {
        long count = ctx.state().get("count", Number.class) instanceof Number n ? n.longValue() : 0;
        Tracker.Run run = tracker.enter(ctx.robotId(), node, ctx.epoch(), count);
        String outcome = "returned";
        try {
            if (config.getString("crash") != null) {
                outcome = "crashed";
                throw new IllegalStateException(config.getString("crash"));
            }
            if (config.get("crashOnceAfterMs") instanceof Number after
                    && tracker.runs(ctx.robotId()).size() == 1) {
                if (ctx.sleep(Duration.ofMillis(after.longValue()))) {
                    outcome = "crashed";
                    throw new IllegalStateException("crashed once");
                }
            }
            Duration interval =
                    Duration.ofMillis(config.get("intervalMs", Number.class) instanceof Number n ? n.longValue() : 50);
            boolean checkpointing = config.getBoolean("checkpoint", true);
            while (ctx.sleep(interval)) {
                if (!checkpointing) {
                    continue;
                }
                count++;
                run.lastAttempted = count;
                ctx.checkpoint(new Document("count", count)
                        .append("epoch", ctx.epoch())
                        .append("node", node));
                run.lastAcked = count;
            }
        } catch (FencedException e) {
            outcome = "fenced";
            throw e;
        } finally {
            tracker.leave(run, Thread.currentThread().isInterrupted() ? outcome + "+interrupted" : outcome);
        }
    }
}
