package io.standby.bench.chaos;

import io.standby.robot.FencedException;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import io.standby.samples.ledger.LedgerRobot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.slf4j.Logger;

/**
 * {@code chaos-ledger}: the real {@code ledger} robot, with every run start, every checkpoint call and every run's end
 * (its return from {@code Robot.run}, normal or not) recorded ({@link Checkpoint}) to
 * {@code <standby.chaos.record>/<standby.chaos.node>-<pid>.tsv}, so that the chaos verdict can judge run overlaps,
 * stale writes and lost acknowledgements from facts. The ledger's own collections are reached through
 * {@code standby.chaos.mongo} (the node's proxy), so that cutting a node off the database cuts its robots off too.
 * Without {@code standby.chaos.record} it records nothing.
 */
public final class ChaosLedger implements RobotFactory {

    public static final String TYPE = "chaos-ledger";
    private static final AtomicLong RUNS = new AtomicLong();
    private static volatile RunRecorder recorder;

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void validate(Document config) {
        ledger().validate(config);
    }

    @Override
    public Robot create(Document config) {
        Robot ledger = ledger().create(config);
        String node = System.getProperty("standby.chaos.node", "node");
        String run = node + "/" + ProcessHandle.current().pid() + "/" + RUNS.incrementAndGet();
        RunRecorder to = recorder();
        return ctx -> {
            if (to == null) {
                ledger.run(ctx);
                return;
            }
            long now = System.currentTimeMillis();
            to.record(new Checkpoint(
                    Checkpoint.Kind.START,
                    ctx.robotId(),
                    node,
                    run,
                    ctx.slotId(),
                    ctx.epoch(),
                    offset(ctx.state()),
                    now,
                    now,
                    "start"));
            String how = "threw";
            try {
                ledger.run(new Recording(ctx, to, node, run));
                how = "returned";
            } finally {
                // Once run has returned, the ledger's client is closed: this run sends nothing more.
                long end = System.currentTimeMillis();
                to.record(new Checkpoint(
                        Checkpoint.Kind.END,
                        ctx.robotId(),
                        node,
                        run,
                        ctx.slotId(),
                        ctx.epoch(),
                        offset(ctx.state()),
                        end,
                        end,
                        how));
            }
        };
    }

    private static LedgerRobot.Factory ledger() {
        String uri = System.getProperty("standby.chaos.mongo");
        return uri == null ? new LedgerRobot.Factory() : new LedgerRobot.Factory(uri);
    }

    private static RunRecorder recorder() {
        String dir = System.getProperty("standby.chaos.record");
        if (dir == null) {
            return null;
        }
        synchronized (ChaosLedger.class) {
            if (recorder == null) {
                String node = System.getProperty("standby.chaos.node", "node");
                recorder = new RunRecorder(
                        Path.of(dir, node + "-" + ProcessHandle.current().pid() + ".tsv"));
            }
            return recorder;
        }
    }

    static long offset(Document state) {
        return state.get("offset") instanceof Number n ? n.longValue() : 0;
    }

    /** The runtime's context, with each checkpoint call timed and recorded with its outcome. */
    private record Recording(RobotContext ctx, RunRecorder to, String node, String run) implements RobotContext {

        @Override
        public void checkpoint(Document state) {
            long before = System.currentTimeMillis();
            String result = "error";
            try {
                ctx.checkpoint(state);
                result = "ok";
            } catch (FencedException e) {
                result = "fenced";
                throw e;
            } finally {
                to.record(new Checkpoint(
                        Checkpoint.Kind.WRITE,
                        ctx.robotId(),
                        node,
                        run,
                        ctx.slotId(),
                        ctx.epoch(),
                        offset(state),
                        before,
                        System.currentTimeMillis(),
                        result));
            }
        }

        @Override
        public String robotId() {
            return ctx.robotId();
        }

        @Override
        public String slotId() {
            return ctx.slotId();
        }

        @Override
        public long epoch() {
            return ctx.epoch();
        }

        @Override
        public Document config() {
            return ctx.config();
        }

        @Override
        public Document state() {
            return ctx.state();
        }

        @Override
        public boolean stopRequested() {
            return ctx.stopRequested();
        }

        @Override
        public boolean sleep(Duration duration) {
            return ctx.sleep(duration);
        }

        @Override
        public Logger log() {
            return ctx.log();
        }
    }
}
