package io.standby.robot.internal;

import io.standby.robot.FencedException;
import io.standby.robot.RobotContext;
import io.standby.robot.model.RobotToken;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.bson.BsonBinaryWriter;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a running robot sees: its identity, configuration and last checkpoint, and the checkpoint itself, fenced by the
 * run's token and ordered by a sequence number that every retry of it keeps.
 */
final class RunContext implements RobotContext {

    private static final Logger log = LoggerFactory.getLogger(RunContext.class);
    private static final DocumentCodec CODEC = new DocumentCodec();
    /** Bytes to encode a document into at first; most robots' configurations and states fit. */
    private static final int RAW_START = 128;
    /** A checkpoint that was not acknowledged is sent again after 50 ms, doubling up to 1 s, while the lease holds. */
    private static final Duration FIRST_RETRY = Duration.ofMillis(50);

    private static final Duration MAX_RETRY = Duration.ofSeconds(1);

    private final RobotToken token;
    private final Lease lease;
    private final RunControl control;
    private final RobotWrites writes;
    private final RunThreads threads;
    private final WriteSequence sequence;
    private final Runnable onRejected;
    private final MonotonicClock clock;
    private final Consumer<Duration> onAcknowledged;
    private final Logger robotLog;
    /** The robot's configuration, immutable; decoded afresh for every {@link #config()} call. */
    private final RawBsonDocument config;
    /** The last accepted state, immutable; decoded afresh for every {@link #state()} call. */
    private volatile RawBsonDocument state;

    /**
     * The robot as launched: its run's token, the lease it runs under, its type (which names its log), and its
     * configuration and last checkpoint as read (null for none).
     */
    record Launch(RobotToken token, Lease lease, String type, Document config, Document state) {}

    /**
     * How checkpoints are written: submitted to {@code writes}, waited for on {@code threads}, numbered by
     * {@code sequence}, and timed on {@code clock}.
     */
    record Checkpoints(RobotWrites writes, RunThreads threads, WriteSequence sequence, MonotonicClock clock) {}

    /**
     * @param onRejected told when a checkpoint was rejected under the run's token: another runner has the robot
     * @param onAcknowledged told how long each acknowledged checkpoint took
     */
    RunContext(
            Launch launch,
            RunControl control,
            Checkpoints checkpoints,
            Runnable onRejected,
            Consumer<Duration> onAcknowledged) {
        this.token = launch.token();
        this.lease = launch.lease();
        this.control = control;
        this.writes = checkpoints.writes();
        this.threads = checkpoints.threads();
        this.sequence = checkpoints.sequence();
        this.onRejected = onRejected;
        this.clock = checkpoints.clock();
        this.onAcknowledged = onAcknowledged;
        this.robotLog = LoggerFactory.getLogger("robot." + launch.type());
        this.config = raw(launch.config() == null ? new Document() : launch.config());
        this.state = raw(launch.state() == null ? new Document() : launch.state());
    }

    /**
     * An immutable copy of {@code document} in as many bytes as it takes. The driver's own constructor keeps its whole
     * 1 KB starting buffer whatever the size: two per robot and one per checkpoint, 20 MB for 10,000 robots.
     */
    static RawBsonDocument raw(Document document) {
        BasicOutputBuffer buffer = new BasicOutputBuffer(RAW_START);
        try (BsonBinaryWriter writer = new BsonBinaryWriter(buffer)) {
            CODEC.encode(writer, document, EncoderContext.builder().build());
        }
        return new RawBsonDocument(buffer.toByteArray());
    }

    @Override
    public String robotId() {
        return token.robotId();
    }

    @Override
    public String slotId() {
        return lease.slotId();
    }

    @Override
    public long epoch() {
        return lease.epoch();
    }

    @Override
    public Document config() {
        return config.decode(CODEC);
    }

    @Override
    public Document state() {
        return state.decode(CODEC);
    }

    @Override
    public void checkpoint(Document newState) {
        // An immutable copy: the robot may go on changing its own document.
        RawBsonDocument snapshot = raw(newState);
        // One sequence number for every attempt: a retry is the same write, and whichever copy lands
        // first wins; a late copy of it after a newer checkpoint matches nothing.
        RobotWrite write = RobotWrite.checkpoint(token, sequence.next(), snapshot);
        long began = clock.nanoTime();
        Backoff retries = new Backoff(FIRST_RETRY, MAX_RETRY);
        while (true) {
            if (control.interrupted() || !lease.isValid()) {
                throw new FencedException("robot " + token.robotId() + " may no longer write at epoch " + lease.epoch()
                        + " of " + lease.slotId());
            }
            try {
                if (threads.get(writes.submit(write))) {
                    state = snapshot;
                    onAcknowledged.accept(Duration.ofNanos(clock.nanoTime() - began));
                    return;
                }
                onRejected.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                control.interrupt();
                throw new FencedException("robot " + token.robotId() + " was interrupted during a checkpoint");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IllegalArgumentException refused) {
                    throw new IllegalArgumentException(
                            "checkpoint of robot " + token.robotId() + " refused: " + refused.getMessage(), refused);
                }
                // Not acknowledged (unreachable, or not confirmed by a majority): retry while the lease holds.
                log.debug(
                        "Checkpoint of {} not acknowledged, retrying: {}",
                        token.robotId(),
                        e.getCause().toString());
                if (!control.sleep(retries.next())) {
                    throw new FencedException("robot " + token.robotId() + " stopped during a checkpoint");
                }
            }
        }
    }

    @Override
    public boolean stopRequested() {
        return control.stopping() || !lease.isValid();
    }

    @Override
    public boolean sleep(Duration duration) {
        return control.sleep(duration) && !stopRequested();
    }

    @Override
    public Logger log() {
        return robotLog;
    }
}
