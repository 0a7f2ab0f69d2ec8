package io.standby.samples.ledger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import io.standby.robot.FencedException;
import io.standby.robot.RobotFactory;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * One run of the ledger at a time, driven by hand against a real wire-protocol database: the cases a takeover produces
 * (a replay from an older checkpoint, a stale run, a foreign output), each made on purpose. {@link LedgerTakeoverTest}
 * has the same facts from real nodes.
 */
class LedgerRobotTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private MongoClient client;
    private MongoDatabase db;
    private Document config;

    @BeforeEach
    void setUp(TestInfo test) {
        client = MongoClients.create(TestMongo.uri());
        String name = TestMongo.freshDatabase(test.getTestMethod().orElseThrow().getName());
        db = client.getDatabase(name);
        config = new Document("uri", TestMongo.uri())
                .append("database", name)
                .append("batch", 40)
                .append("pollMs", 20);
    }

    @AfterEach
    void tearDown() {
        db.drop();
        client.close();
    }

    private MongoCollection<Document> input() {
        return db.getCollection(LedgerConfig.DEFAULT_INPUT);
    }

    private MongoCollection<Document> output() {
        return db.getCollection(LedgerConfig.DEFAULT_OUTPUT);
    }

    private void produce(long from, long to) {
        List<Document> docs = new ArrayList<>();
        for (long seq = from; seq <= to; seq++) {
            docs.add(new Document("seq", seq).append("amount", seq % 7 - 3).append("memo", "entry " + seq));
        }
        input().insertMany(docs);
    }

    private TestContext context(String slot, long epoch, Document state) {
        return new TestContext("ledger-1", slot, epoch, config, state);
    }

    /** Runs the robot on its own thread until the test stops it; the future holds what it threw. */
    private CompletableFuture<Void> start(TestContext ctx) {
        LedgerRobot robot = (LedgerRobot) new LedgerRobot.Factory().create(ctx.config());
        return CompletableFuture.runAsync(
                () -> robot.run(ctx), r -> Thread.ofVirtual().start(r));
    }

    private static long offset(TestContext ctx) {
        return ctx.state().get("offset") instanceof Number n ? n.longValue() : -1;
    }

    private List<Document> outputs() {
        return output().find(Filters.eq("robot", "ledger-1"))
                .sort(Sorts.ascending("seq"))
                .projection(Projections.excludeId())
                .into(new ArrayList<>());
    }

    /** The outputs are exactly the inputs 1..last, each once, in order, with the running balance. */
    private void assertOutputEqualsInput(long last) {
        List<Document> outputs = outputs();
        assertEquals(last, outputs.size(), "one output per input");
        long balance = 0;
        for (int i = 0; i < outputs.size(); i++) {
            long seq = i + 1;
            Document out = outputs.get(i);
            assertEquals(seq, out.getLong("seq"));
            Document in = input().find(Filters.eq("seq", seq))
                    .projection(Projections.excludeId())
                    .first();
            assertEquals(in, out.get("entry", Document.class), "the entry of seq " + seq);
            balance += in.getLong("amount");
            assertEquals(balance, out.getLong("balance"), "the balance at seq " + seq);
        }
    }

    @Test
    void appendsEveryInputOnceInOrderWithItsRunningBalance() throws Exception {
        produce(1, 250);
        TestContext ctx = context("slot-0", 1, new Document());
        CompletableFuture<Void> run = start(ctx);
        await().atMost(WAIT).until(() -> offset(ctx) == 251);
        produce(251, 260);
        await().atMost(WAIT).until(() -> offset(ctx) == 261);
        ctx.stop();
        run.get(30, TimeUnit.SECONDS);

        assertOutputEqualsInput(260);
        assertEquals(
                new Document("offset", 261L)
                        .append(
                                "balance",
                                LongStream.rangeClosed(1, 260)
                                        .map(s -> s % 7 - 3)
                                        .sum())
                        .append("replayed", 0L),
                ctx.state());
        assertEquals(List.of(1L), output().distinct("epoch", Long.class).into(new ArrayList<>()));
    }

    @Test
    void aRunFromAnOlderCheckpointReplaysWhatWasAppendedWithoutDuplicatingIt() throws Exception {
        produce(1, 100);
        TestContext first = context("slot-0", 1, new Document());
        CompletableFuture<Void> run = start(first);
        await().atMost(WAIT).until(() -> offset(first) == 101);
        first.stop();
        run.get(30, TimeUnit.SECONDS);

        // As if the first run's last checkpoints were never acknowledged: the next owner starts at seq 21.
        long balanceBefore21 = LongStream.rangeClosed(1, 20).map(s -> s % 7 - 3).sum();
        TestContext next = context("slot-0", 2, new Document("offset", 21L).append("balance", balanceBefore21));
        produce(101, 120);
        run = start(next);
        await().atMost(WAIT).until(() -> offset(next) == 121);
        next.stop();
        run.get(30, TimeUnit.SECONDS);

        assertOutputEqualsInput(120);
        assertEquals(80L, next.state().getLong("replayed"), "seq 21-100 were there already");
        assertEquals(20, output().countDocuments(Filters.eq("epoch", 2L)), "the second run appended only 101-120");
    }

    @Test
    void aStaleRunAppendsNothingOnceALaterRunHoldsTheFence() throws Exception {
        produce(1, 50);
        TestContext stale = context("slot-0", 3, new Document());
        CompletableFuture<Void> staleRun = start(stale);
        await().atMost(WAIT).until(() -> offset(stale) == 51);

        // slot-0 is taken over at epoch 4 while the epoch-3 run goes on: the runtime rejects its
        // checkpoints from now on, and the new run takes the fence.
        stale.fence();
        TestContext current = context("slot-0", 4, stale.state());
        CompletableFuture<Void> currentRun = start(current);
        await().atMost(WAIT).until(() -> Long.valueOf(4).equals(fence().get("epoch")));
        produce(51, 120);

        assertTrue(failure(staleRun) instanceof FencedException, "the stale run ended on its rejected checkpoint");
        await().atMost(WAIT).until(() -> offset(current) == 121);
        current.stop();
        currentRun.get(30, TimeUnit.SECONDS);

        assertOutputEqualsInput(120);
        assertEquals(
                0,
                output().countDocuments(Filters.and(Filters.eq("epoch", 3L), Filters.gt("seq", 50))),
                "the stale run appended nothing after the takeover");
        assertEquals(
                new Document("_id", "ledger-1")
                        .append("slot", "slot-0")
                        .append("epoch", 4L)
                        .append("next", 121L),
                fence());
    }

    @Test
    void aRunTheRuntimeHasFencedTakesNoFenceAndAppendsNothingEvenFromAnotherSlot() throws Exception {
        produce(1, 30);
        TestContext current = context("slot-0", 4, new Document());
        CompletableFuture<Void> run = start(current);
        await().atMost(WAIT).until(() -> offset(current) == 31);
        current.stop();
        run.get(30, TimeUnit.SECONDS);
        produce(31, 60);

        // A run of the robot's former slot, started late (its node paused at the start): it has another
        // slot, so the fence alone would let it in; the runtime's answer keeps it out.
        TestContext stale = context("slot-1", 9, new Document());
        stale.fence();
        assertThrows(
                FencedException.class,
                () -> new LedgerRobot.Factory().create(stale.config()).run(stale));
        assertEquals(30, output().countDocuments(), "nothing appended after seq 30");
        assertEquals("slot-0", fence().getString("slot"));
        assertEquals(4L, fence().getLong("epoch"));
    }

    @Test
    void aDifferentOutputAlreadyStoredStopsTheRobotInsteadOfBeingSkipped() throws Exception {
        produce(1, 10);
        output().insertOne(new Document("robot", "ledger-1")
                .append("seq", 5L)
                .append("entry", new Document("seq", 5L).append("amount", 1000L))
                .append("balance", 1000L)
                .append("epoch", 0L));

        TestContext ctx = context("slot-0", 1, new Document());
        Throwable failure = failure(start(ctx));
        assertTrue(
                failure instanceof IllegalStateException
                        && failure.getMessage().contains("output seq 5 of robot ledger-1 is already there and differs"),
                String.valueOf(failure));
        assertTrue(offset(ctx) <= 5, "never checkpointed past the foreign output: " + ctx.state());
        assertEquals(1000L, output().find(Filters.eq("seq", 5L)).first().getLong("balance"), "left as it was");
    }

    private Document fence() {
        Document fence = db.getCollection(LedgerConfig.DEFAULT_OUTPUT + "_fences")
                .find()
                .projection(Projections.include("slot", "epoch", "next"))
                .first();
        return fence == null ? new Document() : fence;
    }

    /** What the run threw, waiting for it to end. */
    private static Throwable failure(CompletableFuture<Void> run) throws Exception {
        try {
            run.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the run ended without an exception");
    }

    @Test
    void aHoleInTheInputIsWaitedAtNotSkipped() throws Exception {
        produce(1, 10);
        produce(12, 20);
        TestContext ctx = context("slot-0", 1, new Document());
        CompletableFuture<Void> run = start(ctx);
        await().atMost(WAIT).until(() -> offset(ctx) == 11);
        await().during(Duration.ofMillis(500))
                .atMost(WAIT)
                .until(() -> offset(ctx) == 11 && output().countDocuments() == 10);

        produce(11, 11);
        await().atMost(WAIT).until(() -> offset(ctx) == 21);
        ctx.stop();
        run.get(30, TimeUnit.SECONDS);
        assertOutputEqualsInput(20);
    }

    @Test
    void aBadConfigurationIsRefusedByName() {
        RobotFactory factory = new LedgerRobot.Factory();
        assertEquals(
                "batch 0 must be 1-10000",
                assertThrows(IllegalArgumentException.class, () -> factory.validate(new Document("batch", 0)))
                        .getMessage());
        assertEquals(
                "pollMs 'soon' is not a whole number",
                assertThrows(IllegalArgumentException.class, () -> factory.validate(new Document("pollMs", "soon")))
                        .getMessage());
        assertEquals(
                "input, output and fences must be three different collections",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> factory.validate(new Document("output", "ledger_in")))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> factory.validate(new Document("uri", "http://nope")));
        factory.validate(new Document());
        factory.validate(new Document("batch", "500").append("pollMs", 100).append("database", "books"));
    }
}
