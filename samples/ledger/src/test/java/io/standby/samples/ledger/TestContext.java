package io.standby.samples.ledger;

import io.standby.robot.FencedException;
import io.standby.robot.RobotContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A robot's context without a node, for driving one run of a robot by hand: the test decides when the runtime would
 * reject its checkpoints ({@link #fence()}) and when it should stop.
 */
final class TestContext implements RobotContext {

    private static final Logger log = LoggerFactory.getLogger("robot.test");
    private static final DocumentCodec CODEC = new DocumentCodec();

    private final String robotId;
    private final String slotId;
    private final long epoch;
    private final Document config;
    private volatile Document state;
    private volatile boolean fenced;
    private final CountDownLatch stop = new CountDownLatch(1);
    final List<Document> checkpoints = new CopyOnWriteArrayList<>();

    TestContext(String robotId, String slotId, long epoch, Document config, Document state) {
        this.robotId = robotId;
        this.slotId = slotId;
        this.epoch = epoch;
        this.config = config;
        this.state = state;
    }

    /** From now on checkpoints are rejected, as when another node owns the slot. */
    void fence() {
        fenced = true;
    }

    void stop() {
        stop.countDown();
    }

    @Override
    public String robotId() {
        return robotId;
    }

    @Override
    public String slotId() {
        return slotId;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public Document config() {
        return copy(config);
    }

    @Override
    public Document state() {
        return copy(state);
    }

    /** A deep copy through BSON, which keeps every value's type (a long stays a long), as the database does. */
    private static Document copy(Document doc) {
        return new RawBsonDocument(doc, CODEC).decode(CODEC);
    }

    @Override
    public void checkpoint(Document newState) {
        if (fenced) {
            throw new FencedException("robot " + robotId + " may no longer write at epoch " + epoch + " of " + slotId);
        }
        state = copy(newState);
        checkpoints.add(state);
    }

    @Override
    public boolean stopRequested() {
        return stop.getCount() == 0;
    }

    @Override
    public boolean sleep(Duration duration) {
        try {
            return !stop.await(Math.min(duration.toMillis(), 50), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public Logger log() {
        return log;
    }
}
