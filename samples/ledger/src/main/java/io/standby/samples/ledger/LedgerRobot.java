package io.standby.samples.ledger;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import io.standby.robot.FencedException;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * {@code ledger}: appends one output document per input document, in input order, so that after any number of takeovers
 * the output equals the input exactly: nothing lost, nothing duplicated, nothing changed.
 *
 * <p>The input is {@code {seq, amount, ...}} with dense sequence numbers from {@code firstSeq}; the output is
 * {@code {robot, seq, entry, balance, epoch}}: the input {@code entry} without its {@code _id}, the running
 * {@code balance} of the amounts up to it, and the {@code epoch} of the run that appended it. The robot's context is
 * {@code {offset, balance, replayed}}. Each round reads the next inputs, checks its fence, inserts their outputs with
 * write concern majority, then checkpoints the new offset.
 *
 * <p>Why the output equals the input, with single-document operations only (no transactions):
 *
 * <ul>
 *   <li><b>Nothing duplicated.</b> The output has a unique index on {@code (robot, seq)}: whatever runs, retries or
 *       late copies of an insert there are, at most one output per input exists.
 *   <li><b>Nothing changed.</b> An output is a function of the input up to its seq (the {@code epoch} aside), so every
 *       run computes the same document for a seq; a refused duplicate is compared with the stored one, and a difference
 *       stops the robot rather than being skipped.
 *   <li><b>Nothing lost.</b> The offset is checkpointed only after every output below it was acknowledged by a
 *       majority. The next run starts from the last accepted checkpoint, which is never ahead of the outputs, and
 *       appends again from there: what was already appended is refused by the index and counted in {@code replayed}.
 *   <li><b>Nothing skipped.</b> Inputs are read in seq order, and the ledger waits at a missing seq instead of going
 *       past it.
 * </ul>
 *
 * <p>What the fence ({@link LedgerFence}) adds, and what it cannot. A run first confirms with the runtime (a checkpoint
 * that changes nothing, rejected once another run has the robot) and only then takes the fence, and every batch begins
 * with a compare-and-set on the fence. So a stale run (one whose slot was taken over while it still ran, e.g. a paused
 * process) that the runtime has fenced never takes the fence, and a run whose fence was taken starts no further batch.
 * A batch already past its fence check can still land after the takeover: MongoDB cannot make the check and the inserts
 * one atomic step without a transaction. Such a late insert is a document the current run appends too, so the index
 * keeps one of the two, equal but for {@code epoch}.
 *
 * <p>What the input must promise: every entry has its own whole-number {@code seq} (a unique index on it is created),
 * the sequence has no permanent holes, entries never change once inserted, and amounts are whole numbers. Reads use
 * read concern majority, so an input that a failover rolls back is never appended.
 */
public final class LedgerRobot implements Robot {

    public static final String TYPE = "ledger";
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(8);
    private static final long OPERATION_TIMEOUT_MS = 10_000;

    private final LedgerConfig config;
    private final String uri;

    LedgerRobot(LedgerConfig config, String defaultUri) {
        this.config = config;
        this.uri = config.uri() != null ? config.uri() : defaultUri;
    }

    @Override
    public void run(RobotContext ctx) {
        try (MongoClient client = MongoClients.create(settings(uri))) {
            MongoDatabase db = client.getDatabase(config.database())
                    .withWriteConcern(WriteConcern.MAJORITY)
                    .withReadConcern(ReadConcern.MAJORITY)
                    .withReadPreference(ReadPreference.primary());
            LedgerBook book =
                    new LedgerBook(db.getCollection(config.input()), db.getCollection(config.output()), ctx.robotId());
            LedgerFence fence =
                    new LedgerFence(db.getCollection(config.fences()), ctx.robotId(), ctx.slotId(), ctx.epoch());
            LedgerPosition at = LedgerPosition.of(ctx.state(), config.firstSeq());
            ctx.log()
                    .info(
                            "Ledger from seq {} (balance {}) at epoch {} of {}",
                            at.offset(),
                            at.balance(),
                            ctx.epoch(),
                            ctx.slotId());
            book.ensureIndexes();
            regain(ctx, fence, at);
            Duration backoff = config.poll();
            while (!ctx.stopRequested()) {
                try {
                    LedgerPosition next = round(ctx, book, fence, at);
                    if (next == null) {
                        if (!ctx.sleep(config.poll())) {
                            return;
                        }
                        continue;
                    }
                    at = next;
                    backoff = config.poll();
                } catch (MongoInterruptedException e) {
                    throw e;
                } catch (MongoException e) {
                    // Unreachable, a failover, a write not confirmed by a majority: the round is repeated
                    // from the same position, so whatever of it landed is a replay.
                    ctx.log()
                            .warn(
                                    "Ledger round from seq {} failed, again in {} ms: {}",
                                    at.offset(),
                                    backoff.toMillis(),
                                    e.toString());
                    if (!ctx.sleep(backoff)) {
                        return;
                    }
                    backoff =
                            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
                }
            }
        }
    }

    /** One batch: read, check the fence, append, checkpoint. Returns null when there was no new input. */
    private LedgerPosition round(RobotContext ctx, LedgerBook book, LedgerFence fence, LedgerPosition at) {
        List<Document> inputs = book.inputs(at.offset(), config.batch());
        if (inputs.isEmpty()) {
            return null;
        }
        if (!fence.advance(at.offset() + inputs.size())) {
            ctx.log().info("Ledger fence taken by another run; checking that this run is still the robot's");
            regain(ctx, fence, at);
            return at;
        }
        LedgerPosition.Batch batch = at.append(inputs, ctx.robotId(), ctx.epoch());
        int replayed = book.append(batch.outputs());
        LedgerPosition next = batch.next().replayed(replayed);
        // Only now, with every output below next.offset acknowledged by a majority.
        ctx.checkpoint(next.toDocument());
        return next;
    }

    /**
     * Takes the fence, at the start of a run or after another run took it. Whether this run is still the robot's only
     * the runtime knows: a checkpoint that changes nothing asks it, and throws {@link FencedException} if not. So a run
     * the runtime has fenced never takes the fence. A later run fences the robot in the runtime before it starts, so if
     * a later epoch of this slot holds the fence, the next checkpoint is rejected.
     */
    private static void regain(RobotContext ctx, LedgerFence fence, LedgerPosition at) {
        for (int attempt = 0; attempt < 3; attempt++) {
            ctx.checkpoint(at.toDocument());
            if (fence.take(at.offset())) {
                return;
            }
        }
        throw new IllegalStateException("the fence of ledger " + ctx.robotId() + " is held by a later epoch of "
                + ctx.slotId() + " although the runtime accepts checkpoints at epoch " + ctx.epoch());
    }

    private static MongoClientSettings settings(String uri) {
        return MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(uri))
                .applicationName("standby-ledger")
                .applyToClusterSettings(c -> c.serverSelectionTimeout(OPERATION_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(s -> s.connectTimeout((int) OPERATION_TIMEOUT_MS, TimeUnit.MILLISECONDS))
                .timeout(OPERATION_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .build();
    }

    /**
     * Registered in META-INF/services. A robot without {@code uri} in its config uses the factory's default: the node's
     * own {@code STANDBY_MONGO_URI}, else {@value LedgerConfig#DEFAULT_URI}.
     */
    public static final class Factory implements RobotFactory {

        private final String defaultUri;

        public Factory() {
            this(System.getenv().getOrDefault("STANDBY_MONGO_URI", LedgerConfig.DEFAULT_URI));
        }

        /** For an application that embeds a node: the ledger's collections are on {@code defaultUri}. */
        public Factory(String defaultUri) {
            this.defaultUri = new ConnectionString(defaultUri).getConnectionString();
        }

        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public void validate(Document config) {
            LedgerConfig ledger = LedgerConfig.of(config);
            if (ledger.uri() != null) {
                new ConnectionString(ledger.uri());
            }
        }

        @Override
        public Robot create(Document config) {
            validate(config);
            return new LedgerRobot(LedgerConfig.of(config), defaultUri);
        }
    }
}
