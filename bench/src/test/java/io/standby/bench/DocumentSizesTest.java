package io.standby.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import de.bwaldvogel.mongo.MongoServer;
import io.standby.embedded.StandbyMemoryBackend;
import io.standby.robot.internal.MongoRobotStore;
import io.standby.robot.internal.RobotWrite;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotToken;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.FreeShare;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.NodeRegistry;
import io.standby.slot.internal.OwnerDocRules;
import io.standby.slot.internal.SlotStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sizes docs/SCALING.md's cost model rests on, measured on the embedded server with the stores' own commands:
 * documents as the protocol leaves them, and the bytes of the commands and replies a node sends and receives (BSON as
 * the driver's command listener sees it, without the wire's 21-byte message header). It prints them as the table the
 * doc shows, and asserts each within a band, so that a change that makes a document or a poll much larger fails here
 * and sends its author to the cost model.
 *
 * <p>Run: {@code mvn -B -o -q -pl bench -am test -Dtest=DocumentSizesTest -Dsurefire.failIfNoSpecifiedTests=false}
 */
class DocumentSizesTest {

    private static final Duration LEASE = SlotTiming.DEFAULT_LEASE;
    private static final Duration LATE = SlotTiming.defaults().late();

    private static MongoServer server;
    private static MongoClient client;
    private static StandbyDatabase database;
    private static final List<long[]> sent = new ArrayList<>();
    private static final Map<Integer, String> names = new LinkedHashMap<>();
    private static final Map<String, Long> measured = new LinkedHashMap<>();

    @BeforeAll
    static void start() {
        server = new MongoServer(new StandbyMemoryBackend());
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        CommandListener listener = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                synchronized (sent) {
                    sent.add(new long[] {event.getRequestId(), bytes(event.getCommand()), -1});
                    names.put(event.getRequestId(), event.getCommandName());
                }
            }

            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                synchronized (sent) {
                    sent.stream()
                            .filter(s -> s[0] == event.getRequestId())
                            .forEach(s -> s[2] = bytes(event.getResponse()));
                }
            }
        };
        client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new com.mongodb.ConnectionString("mongodb://127.0.0.1:" + address.getPort()))
                .addCommandListener(listener)
                .build());
        database = StandbyDatabase.of(client, "sizes", Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() {
        StringBuilder table = new StringBuilder("| what | bytes |\n| --- | --- |\n");
        measured.forEach((what, size) ->
                table.append("| ").append(what).append(" | ").append(size).append(" |\n"));
        System.out.print(table);
        client.close();
        server.shutdownNow();
    }

    private static long bytes(BsonDocument document) {
        return new RawBsonDocument(document, new BsonDocumentCodec())
                .getByteBuffer()
                .remaining();
    }

    /** The request and reply bytes of the one command {@code action} sends that is named {@code command}. */
    private static long[] one(String command, Runnable action) {
        return several(command, 1, action);
    }

    /** The request and reply bytes, summed, of the {@code count} commands named {@code command} of {@code action}. */
    private static long[] several(String command, int count, Runnable action) {
        int before;
        synchronized (sent) {
            before = sent.size();
        }
        action.run();
        synchronized (sent) {
            List<long[]> mine = sent.subList(before, sent.size()).stream()
                    .filter(s -> names.get((int) s[0]).equals(command))
                    .toList();
            assertEquals(count, mine.size(), count + " " + command + " command(s)");
            return new long[] {
                mine.stream().mapToLong(m -> m[1]).sum(),
                mine.stream().mapToLong(m -> m[2]).sum()
            };
        }
    }

    private static long stored(String collection, Object id) {
        RawBsonDocument doc = database.database()
                .getCollection(collection, RawBsonDocument.class)
                .find(Filters.eq("_id", id))
                .first();
        assertTrue(doc != null, collection + " " + id);
        return doc.getByteBuffer().remaining();
    }

    private static void record(String what, long bytes, long low, long high) {
        measured.put(what, bytes);
        assertTrue(
                bytes >= low && bytes <= high,
                String.format(Locale.ROOT, "%s: %d bytes, expected %d to %d", what, bytes, low, high));
    }

    @Test
    void slotDocumentsAndAPollOfThemAllGrowByAboutTwoHundredBytesASlot() {
        MongoSlotStore store = new MongoSlotStore(database);
        NodeConfig a = NodeConfig.of(new NodeId("10.0.0.11", 7700), 1_000, SlotTiming.defaults());
        NodeConfig b = NodeConfig.of(new NodeId("10.0.0.12", 7700), 1_000, SlotTiming.defaults());
        SlotStore.Ownership ownerA = new SlotStore.Ownership(a.node(), a.instance(), LEASE, LATE);
        SlotStore.Ownership ownerB = new SlotStore.Ownership(b.node(), b.instance(), LEASE, LATE);
        Map<String, Long> heldByA = new LinkedHashMap<>();
        Map<String, Long> heldByB = new LinkedHashMap<>();
        measured.put("(instance id on this host, characters: it is in every owned slot and renewal branch)", (long)
                a.instance().length());
        store.create("slot-1");
        record("slot document, never owned (`slot-1`)", stored("slots", "slot-1"), 80, 200);
        Map<Integer, Long> pollReply = new LinkedHashMap<>();
        Map<Integer, Long> standbyPoll = new LinkedHashMap<>();
        NodeId standby = new NodeId("10.0.0.13", 7700);
        int created = 1;
        for (int m : new int[] {1, 10, 100, 1_000}) {
            for (int i = created + 1; i <= m; i++) {
                store.create("slot-" + i);
            }
            created = m;
            for (SlotView slot : store.readAll()) {
                if (slot.owner() == null) {
                    boolean toA = heldByA.size() <= heldByB.size();
                    assertTrue(store.claim(slot, toA ? ownerA : ownerB), slot.id());
                    (toA ? heldByA : heldByB).put(slot.id(), slot.epoch() + 1);
                }
            }
            store.renewAll(heldByA, ownerA);
            if (!heldByB.isEmpty()) {
                store.renewAll(heldByB, ownerB);
            }
            pollReply.put(m, one("aggregate", store::readAll)[1]);
            // A standby's poll while the owners are timely: their owner documents (one at M = 1), no slot.
            standbyPoll.put(
                    m, one("aggregate", () -> store.poll(standby, Instant.now().minusSeconds(3), FreeShare.ALL))[1]);
        }
        record("slot document, owned with a late mark", stored("slots", "slot-1"), 150, 350);
        record("poll reply (`aggregate` with `$$NOW`), M = 1", pollReply.get(1), 200, 600);
        record("poll reply, M = 10", pollReply.get(10), 1_000, 4_000);
        record("poll reply, M = 100", pollReply.get(100), 15_000, 40_000);
        record("poll reply, M = 1,000", pollReply.get(1_000), 150_000, 400_000);
        record("poll reply, per slot (M = 100 to 1,000)", (pollReply.get(1_000) - pollReply.get(100)) / 900, 150, 400);
        record(
                "owner document (`owner:<ip:port>/<instance>`, beat, at)",
                stored("owners", OwnerDocRules.ownerId(a.node(), a.instance())),
                60,
                250);
        record("a standby's poll of an idle world: 1 owner, M = 1", standbyPoll.get(1), 100, 800);
        record("a standby's poll of an idle world: 2 owners, M = 1,000", standbyPoll.get(1_000), 100, 800);

        // Two commands: the owner document's beat, then the slots' updateMany.
        long[] renewOne = several("update", 2, () -> store.renewAll(Map.of("slot-1", heldByA.get("slot-1")), ownerA));
        long[] renew500 = several("update", 2, () -> store.renewAll(heldByA, ownerA));
        assertEquals(500, heldByA.size());
        record("renewal (owner document, then `updateMany`: two commands), 1 slot: requests", renewOne[0], 150, 900);
        record("renewal, 500 slots (one epoch): request", renew500[0], 5_000, 30_000);
        record(
                "renewal, per slot held (1 to 500): its id in the epoch's `$in`",
                (renew500[0] - renewOne[0]) / 499,
                8,
                60);
        record("renewal replies", renew500[1], 20, 400);

        store.markDrain(a.node(), SlotView.Drain.asked(a.instance()));
        record("slot document, owned, late mark and drain request", stored("slots", "slot-1"), 180, 450);
    }

    @Test
    void aNodeDocumentAndTheRegistryReadOfItAreAFewHundredBytes() {
        MongoNodeRegistry registry = new MongoNodeRegistry(database.database());
        for (int i = 1; i <= 10; i++) {
            NodeConfig node = NodeConfig.of(new NodeId("10.0.1." + i, 7700), 4, SlotTiming.defaults());
            registry.write(
                    new NodeRegistry.NodeRecord(
                            node.node(),
                            node.instance(),
                            node.host(),
                            NodeState.OWNER,
                            List.of("slot-" + (2 * i - 1), "slot-" + 2 * i),
                            4,
                            25,
                            0,
                            0.31,
                            0.42,
                            25,
                            "0.1.0",
                            Duration.ofSeconds(20),
                            List.of("counter", "ledger")),
                    NodeRegistry.Write.FIRST);
        }
        record(
                "node document (2 slots, 2 robot types)",
                stored(MongoNodeRegistry.COLLECTION, "10.0.1.1:7700"),
                250,
                700);
        long[] write = one("findAndModify", () -> {
            NodeConfig node = NodeConfig.of(new NodeId("10.0.1.1", 7700), 4, SlotTiming.defaults());
            registry.write(
                    new NodeRegistry.NodeRecord(
                            node.node(),
                            node.instance(),
                            node.host(),
                            NodeState.OWNER,
                            List.of("slot-1", "slot-2"),
                            4,
                            25,
                            0,
                            0.31,
                            0.42,
                            25,
                            "0.1.0",
                            Duration.ofSeconds(20),
                            List.of("counter", "ledger")),
                    NodeRegistry.Write.AGAIN);
        });
        record("registry write (`findAndModify`): request", write[0], 300, 1_000);
        record(
                "registry read of live nodes (`find`), per node (10 nodes)",
                one("find", registry::readLive)[1] / 10,
                50,
                200);
    }

    @Test
    void aRobotDocumentItsCheckpointAndItsWatchedFieldsStaySmall() {
        MongoRobotStore robots = new MongoRobotStore(database);
        robots.ensureIndexes();
        List<String> ids = IntStream.rangeClosed(1, 1_000)
                .mapToObj(i -> String.format(Locale.ROOT, "robot-%05d", i))
                .toList();
        for (String id : ids) {
            assertTrue(robots.insert(
                    RobotCodec.newRobot(id, "counter", "slot-7", 0, 1.0, new Document("intervalMs", 1_000))));
        }
        robots.fence("slot-7", 3, null);
        robots.take("slot-7", 3, ids, "10.0.0.11:7700");
        // A running robot after its first checkpoint: its token after the fence and the take.
        RobotToken token =
                RobotToken.of(robots.load("slot-7", 3, List.of(ids.getFirst())).getFirst());
        robots.write(List.of(
                RobotWrite.status(token, 1, new Document("state", "RUNNING").append("node", "10.0.0.11:7700"))));
        long[] checkpoint = one(
                "update",
                () -> robots.write(List.of(
                        RobotWrite.checkpoint(token, 2, new Document("count", 123_456L).append("at", new Date())))));
        record("robot document (`counter`, context `{count, at}`)", stored("robots", ids.getFirst()), 350, 900);
        record("checkpoint (one `update` in a bulk): request", checkpoint[0], 200, 700);
        List<RobotWrite> hundred = new ArrayList<>();
        for (String id : ids.subList(1, 101)) {
            RobotToken each =
                    RobotToken.of(robots.load("slot-7", 3, List.of(id)).getFirst());
            hundred.add(RobotWrite.checkpoint(each, 2, new Document("count", 123_456L).append("at", new Date())));
        }
        long[] bulk = one("update", () -> robots.write(hundred));
        record("checkpoints, bulk of 100: request, per checkpoint", bulk[0] / 100, 150, 600);
        record(
                "robots' watched fields (`find`), per robot (1,000 robots)",
                one("find", () -> robots.watch(List.of("slot-7")))[1] / 1_000,
                100,
                300);
    }

    @Test
    void anEventDocumentIsAboutTwoHundredBytes() {
        EventLog log = new EventLog(database.database()).start();
        log.record(new Document("slot", "slot-12345")
                .append("epoch", 42L)
                .append("node", "10.0.0.12:7700")
                .append("type", "took-over")
                .append("from", "10.0.0.11:7700")
                .append("heartbeat", new Date())
                .append("how", "fast-failover")
                .append("evidence", "2 connects to 10.0.0.11:7700 refused"));
        log.close();
        MongoCollection<RawBsonDocument> events =
                database.database().getCollection(EventLog.COLLECTION, RawBsonDocument.class);
        RawBsonDocument event = events.find().first();
        assertTrue(event != null, "the event was written");
        record("event document (a takeover)", event.getByteBuffer().remaining(), 150, 400);
    }
}
