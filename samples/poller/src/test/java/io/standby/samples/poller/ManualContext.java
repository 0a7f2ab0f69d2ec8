package io.standby.samples.poller;

import io.standby.robot.RobotContext;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A robot's context on a clock moved by hand: {@link #sleep} moves the clock instead of waiting, so a test of schedules
 * runs in milliseconds and asserts exact times. The robot returns at the first sleep after {@code until} holds.
 */
final class ManualContext implements RobotContext, InstantSource {

    private static final Logger log = LoggerFactory.getLogger("robot.poller");
    private static final DocumentCodec CODEC = new DocumentCodec();
    static final Instant START = Instant.parse("2026-11-23T09:00:00Z");

    private final Document config;
    private volatile Instant now = START;
    private volatile Document state;
    private volatile BooleanSupplier until = () -> false;
    final List<Document> checkpoints = new CopyOnWriteArrayList<>();
    final List<Duration> sleeps = new CopyOnWriteArrayList<>();

    ManualContext(Document config, Document state) {
        this.config = config;
        this.state = state;
    }

    ManualContext until(BooleanSupplier done) {
        this.until = done;
        return this;
    }

    /** Milliseconds since {@link #START} on this clock. */
    long elapsedMs() {
        return Duration.between(START, now).toMillis();
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public String robotId() {
        return "poller-1";
    }

    @Override
    public String slotId() {
        return "slot-0";
    }

    @Override
    public long epoch() {
        return 1;
    }

    @Override
    public Document config() {
        return copy(config);
    }

    @Override
    public Document state() {
        return copy(state);
    }

    @Override
    public void checkpoint(Document newState) {
        state = copy(newState);
        checkpoints.add(state);
    }

    /** The last checkpoint's target for {@code url}. */
    Document target(String url) {
        return state.getList("targets", Document.class).stream()
                .filter(t -> t.getString("url").equals(url))
                .findFirst()
                .orElseThrow();
    }

    @Override
    public boolean stopRequested() {
        return false;
    }

    @Override
    public boolean sleep(Duration duration) {
        if (until.getAsBoolean()) {
            return false;
        }
        if (sleeps.size() > 10_000) {
            throw new AssertionError("the robot slept 10,000 times without the test's condition coming true");
        }
        sleeps.add(duration);
        now = now.plus(duration);
        return true;
    }

    @Override
    public Logger log() {
        return log;
    }

    private static Document copy(Document doc) {
        return new RawBsonDocument(doc, CODEC).decode(CODEC);
    }
}
