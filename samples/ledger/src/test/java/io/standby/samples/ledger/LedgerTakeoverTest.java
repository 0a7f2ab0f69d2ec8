package io.standby.samples.ledger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import io.standby.node.StandbyNode;
import io.standby.node.StandbyNodeBuilder;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's promise on real nodes: two ledger robots on three nodes in this JVM, each node reaching the database
 * through a proxy of its own, while a producer keeps inserting input. Slot owners are cut off from the database (they
 * fence themselves, a standby takes over, and what they had sent arrives late when the cut ends) or stopped gracefully
 * and replaced. Afterwards each robot's output is the input exactly: every seq once, with its entry and running
 * balance.
 */
class LedgerTakeoverTest {

    private static final Logger log = LoggerFactory.getLogger(LedgerTakeoverTest.class);
    /** Short leases, so that a takeover takes a couple of seconds. */
    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(250), Duration.ofMillis(1500), Duration.ofMillis(250));

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final List<String> ROBOTS = List.of("ledger-a", "ledger-b");
    private static final int TAKEOVERS = 3 * 2;

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;
    private final Map<Integer, LedgerNode> nodes = new LinkedHashMap<>();
    private final AtomicLong produced = new AtomicLong();
    private final ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();

    /**
     * A node whose connections to the database go through proxies of its own: {@code proxy} for the slot protocol and
     * the runtime, {@code ledgerProxy} for the ledger's collections.
     */
    private record LedgerNode(
            int port,
            TcpProxy proxy,
            TcpProxy ledgerProxy,
            StandbyDatabase slots,
            StandbyDatabase robots,
            StandbyNode node)
            implements AutoCloseable {

        static LedgerNode start(int port, String db) throws IOException {
            TcpProxy proxy = TcpProxy.to(TestMongo.uri());
            TcpProxy ledgerProxy = TcpProxy.to(TestMongo.uri());
            StandbyDatabase slots = StandbyDatabase.connect(proxy.uri(), db, TIMING.operationTimeout(), null);
            StandbyDatabase robots =
                    StandbyDatabase.connect(proxy.uri(), db, StandbyNodeBuilder.ROBOT_OPERATION_TIMEOUT, null);
            StandbyNode node = StandbyNode.builder()
                    .databases(slots, robots)
                    .node("127.0.0.1", port)
                    .timing(TIMING)
                    .stopTimeout(Duration.ofSeconds(5))
                    .robotTypes(RobotTypes.of(new LedgerRobot.Factory(ledgerProxy.uri())))
                    // Nodes in one JVM need no HTTP endpoint; each has its own port all the same.
                    .withoutEndpoint()
                    .start();
            return new LedgerNode(port, proxy, ledgerProxy, slots, robots, node);
        }

        @Override
        public void close() {
            proxy.resume();
            ledgerProxy.resume();
            node.close();
            slots.close();
            robots.close();
            proxy.close();
            ledgerProxy.close();
        }
    }

    /** How a round takes a slot from its owner. */
    private enum Fault {
        /**
         * The owner loses the database, except for the ledger's own connection: its ledger appends past its last
         * checkpoint.
         */
        CUT_BUT_LEDGER,
        /** The owner loses the database entirely; what it sent meanwhile arrives late when the cut ends. */
        CUT,
        /** The owner stops gracefully and is replaced by a new node. */
        STOP
    }

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        producer.shutdownNow();
        producer.awaitTermination(30, TimeUnit.SECONDS);
        nodes.values().forEach(LedgerNode::close);
    }

    @Test
    void theOutputIsTheInputExactlyAfterTakeoversWhileTheProducerWrites() throws Exception {
        new SlotTable(admin).init(ROBOTS.size());
        for (int i = 0; i < ROBOTS.size(); i++) {
            new RobotTable(admin)
                    .add(
                            new RobotTable.NewRobot(
                                    ROBOTS.get(i),
                                    LedgerRobot.TYPE,
                                    "slot-" + i,
                                    0,
                                    1,
                                    new Document("database", db)
                                            .append("batch", 25)
                                            .append("pollMs", 50)),
                            OptionalDouble.empty());
        }
        for (int i = 0; i < 3; i++) {
            startNode();
        }
        producer.scheduleWithFixedDelay(this::produce, 0, 40, TimeUnit.MILLISECONDS);
        await().atMost(WAIT).until(() -> ROBOTS.stream().allMatch(r -> offset(r) > 1));

        for (int round = 0; round < TAKEOVERS; round++) {
            String slot = "slot-" + (round % ROBOTS.size());
            // Each slot gets each fault once.
            Fault fault = Fault.values()[(round / ROBOTS.size() + round % ROBOTS.size()) % Fault.values().length];
            SlotView before = slot(slot);
            LedgerNode owner = nodes.get(before.owner().port());
            long seen = produced.get();
            // Some input since the last takeover, so that the robots are appending when this one comes.
            await().atMost(WAIT).until(() -> produced.get() >= seen + 50);
            log.info("Round {}: {} on {} (owner of {} at epoch {})", round, fault, owner.port(), slot, before.epoch());
            switch (fault) {
                case CUT_BUT_LEDGER, CUT -> {
                    owner.proxy().pause();
                    if (fault == Fault.CUT) {
                        owner.ledgerProxy().pause();
                    }
                    awaitNewOwner(slot, before);
                    owner.proxy().resume();
                    owner.ledgerProxy().resume();
                }
                case STOP -> {
                    nodes.remove(owner.port()).close();
                    awaitNewOwner(slot, before);
                    startNode();
                }
            }
        }
        // Ends the schedule; a chunk being inserted now completes, so produced is final after it.
        producer.shutdown();
        assertTrue(producer.awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS), "the producer stopped");
        long last = produced.get();
        log.info("Produced {} inputs; waiting for both ledgers to append them", last);
        await().atMost(WAIT).until(() -> ROBOTS.stream().allMatch(r -> offset(r) == last + 1));

        MongoCollection<Document> input = admin.database().getCollection(LedgerConfig.DEFAULT_INPUT);
        Map<Long, Document> entries = new HashMap<>();
        input.find().projection(Projections.excludeId()).forEach(d -> entries.put(d.getLong("seq"), d));
        assertEquals(last, entries.size());
        for (String robot : ROBOTS) {
            List<Document> outputs = admin.database()
                    .getCollection(LedgerConfig.DEFAULT_OUTPUT)
                    .find(Filters.eq("robot", robot))
                    .sort(Sorts.ascending("seq"))
                    .projection(Projections.excludeId())
                    .into(new ArrayList<>());
            assertEquals(last, outputs.size(), robot + ": one output per input");
            long balance = 0;
            Set<Long> epochs = new TreeSet<>();
            for (int i = 0; i < outputs.size(); i++) {
                Document out = outputs.get(i);
                long seq = i + 1;
                assertEquals(seq, out.getLong("seq"), robot + ": each seq once, in order");
                assertEquals(entries.get(seq), out.get("entry", Document.class), robot + ": the entry of seq " + seq);
                balance += entries.get(seq).getLong("amount");
                assertEquals(balance, out.getLong("balance"), robot + ": the balance at seq " + seq);
                epochs.add(out.getLong("epoch"));
            }
            Document context = context(robot);
            assertEquals(balance, context.getLong("balance"), robot + ": the checkpointed balance");
            // Each robot's slot changed hands three times while input kept coming: at least four runs appended.
            assertTrue(epochs.size() >= 4, robot + " was appended by runs at epochs " + epochs);
            String slot = "slot-" + ROBOTS.indexOf(robot);
            // (Awaited: a takeover of a loaded machine's own making may be under way.)
            await().atMost(WAIT)
                    .untilAsserted(() -> assertEquals(
                            new Document("_id", robot)
                                    .append("slot", slot)
                                    .append("epoch", slot(slot).epoch()),
                            admin.database()
                                    .getCollection(LedgerConfig.DEFAULT_OUTPUT + "_fences")
                                    .find(Filters.eq("_id", robot))
                                    .projection(Projections.include("slot", "epoch"))
                                    .first(),
                            robot + ": the fence names the run of the slot's current owner"));
            log.info(
                    "{}: {} outputs from epochs {}, {} replayed",
                    robot,
                    outputs.size(),
                    epochs,
                    context.get("replayed"));
        }
    }

    private void startNode() throws IOException {
        int port = TestPorts.free();
        nodes.put(port, LedgerNode.start(port, db));
    }

    /** Inserts one small chunk of input (dense seqs from 1); scheduled every 40 ms until the test stops it. */
    private void produce() {
        MongoCollection<Document> input = admin.database().getCollection(LedgerConfig.DEFAULT_INPUT);
        List<Document> chunk = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long seq = produced.get() + chunk.size() + 1;
            chunk.add(new Document("seq", seq)
                    .append("amount", (seq * 37) % 101 - 50)
                    .append("memo", "payment " + seq));
        }
        input.insertMany(chunk);
        produced.addAndGet(chunk.size());
    }

    private void awaitNewOwner(String slotId, SlotView before) {
        await().atMost(WAIT).until(() -> {
            SlotView now = slot(slotId);
            return now.owner() != null
                    && now.epoch() > before.epoch()
                    && !now.owner().equals(before.owner());
        });
        log.info(
                "{} now owned by {} at epoch {}",
                slotId,
                slot(slotId).owner(),
                slot(slotId).epoch());
    }

    private SlotView slot(String slotId) {
        return new SlotTable(admin).get(slotId).orElseThrow();
    }

    private Document context(String robot) {
        // A projection: the embedded server copies the document, so no torn read of a concurrent checkpoint.
        Document doc = admin.database()
                .getCollection("robots")
                .find(Filters.eq("_id", robot))
                .projection(Projections.include("context"))
                .first();
        return doc == null ? new Document() : doc.get("context", new Document());
    }

    private long offset(String robot) {
        return context(robot).get("offset") instanceof Number n ? n.longValue() : -1;
    }
}
