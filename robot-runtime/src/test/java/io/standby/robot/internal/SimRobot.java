package io.standby.robot.internal;

import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import io.standby.robot.model.RobotToken;
import io.standby.slot.Lease;
import java.time.Duration;
import org.bson.Document;

/**
 * The simulation's robot, run by the real {@code RobotRun} with the real {@code RunContext}: a counter that checkpoints
 * every {@code intervalMs} from where its last acknowledged checkpoint left it, and tells the checker when its code
 * begins and ends, and each count the runtime acknowledged. A robot whose config has {@code crashEvery: n} throws after
 * every n-th checkpoint, so that the supervisor restarts it and, in a crash loop, gives it up as FAILED.
 */
final class SimRobot implements Robot {

    /** What the launcher knows of a run, attached to its thread: the robot learns its token and lease from it. */
    record Launch(SimNode node, RobotToken token, Lease lease) {}

    /** The type {@code sim}, whose robots find their launch on the thread that creates them. */
    static RobotFactory factory() {
        return new RobotFactory() {
            @Override
            public String type() {
                return "sim";
            }

            @Override
            public Robot create(Document config) {
                return new SimRobot((Launch) SimThreads.current().attachment, config);
            }
        };
    }

    final SimNode node;
    final RobotToken token;
    final Lease lease;
    private final Duration interval;
    private final long crashEvery;
    long restored;
    long startedAt;
    private boolean running;
    /** Since when the checker has seen this robot's code run without a valid lease; -1: it has not. */
    long invalidSince = -1;

    private boolean ended;

    private SimRobot(Launch launch, Document config) {
        this.node = launch.node();
        this.token = launch.token();
        this.lease = launch.lease();
        this.interval = Duration.ofMillis(config.get("intervalMs", Number.class).longValue());
        this.crashEvery = config.get("crashEvery") instanceof Number n ? n.longValue() : 0;
    }

    @Override
    public void run(RobotContext context) {
        restored = context.state().get("count") instanceof Number n ? n.longValue() : 0;
        startedAt = node.sim.now();
        running = true;
        node.sim.note(node + " starts " + token + " from " + restored);
        node.world.checker.launched(this);
        long count = restored;
        try {
            while (context.sleep(interval)) {
                count++;
                context.checkpoint(new Document("count", count));
                node.world.checker.acked(this, count);
                if (crashEvery > 0 && count % crashEvery == 0) {
                    node.world.checker.crashes++;
                    throw new IllegalStateException("crash at " + count);
                }
            }
            // Asked to stop: it finishes what it was doing (deaf to the request, not to an interrupt) and
            // checkpoints once more, as a crawler finishes its page. A slot released before this ends
            // leaves a runner behind.
            node.threads.work(Duration.ofMillis(node.sim.random.nextInt(150)));
            if (!Thread.currentThread().isInterrupted()) {
                count++;
                context.checkpoint(new Document("count", count));
                node.world.checker.acked(this, count);
            }
        } finally {
            running = false;
            ended = true;
            node.sim.note(node + " ended " + token + " at " + count);
            node.world.checker.ended(this);
        }
    }

    boolean ended() {
        return ended;
    }

    /** The robot's code is not running: it returned, threw, or has not begun. */
    boolean finishing() {
        return !running;
    }

    @Override
    public String toString() {
        return token + " on " + node + " since " + startedAt / Sim.MS + "ms";
    }
}
