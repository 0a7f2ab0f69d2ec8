package io.standby.slot.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.FreshDatabase;
import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.CommandLog;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The compare-and-set contract of the slot store, run against every kind of database: embedded mongo-java-server, a
 * MongoDB at a URI, and a Testcontainers MongoDB where Docker exists.
 */
abstract class SlotStoreContract {

    private static final Duration LEASE = Duration.ofSeconds(5);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = FreshDatabase.perTest().on(this::uri);

    private StandbyDatabase db;
    private MongoSlotStore store;

    /** The URI of the database this run of the contract targets. */
    protected abstract String uri();

    /**
     * Whether that server runs {@code $unionWith} (MongoDB 4.4 and later, the embedded server as {@code standby mongo}
     * and the tests serve it), so that a poll is one command; a stock mongo-java-server does not.
     */
    protected boolean knowsUnionWith() {
        return true;
    }

    @BeforeEach
    void connect() {
        db = database.connection();
        store = new MongoSlotStore(db);
    }

    private static SlotStore.Ownership owner(int port, String instance) {
        return new SlotStore.Ownership(new NodeId("127.0.0.1", port), instance, LEASE);
    }

    private SlotView slot(String id) {
        return store.read(id).orElseThrow();
    }

    @Test
    void everyReadIsFromThePrimaryWithMajorityReadConcernAndEveryWriteWaitsForAMajorityWhateverTheUriSays() {
        CommandLog commands = new CommandLog();
        try (StandbyDatabase loose = StandbyDatabase.connect(
                CommandLog.withOptions(uri(), CommandLog.LOOSE_OPTIONS),
                db.database().getName(),
                Duration.ofSeconds(10),
                s -> s.addCommandListener(commands))) {
            MongoSlotStore looseStore = new MongoSlotStore(loose);
            SlotTable table = new SlotTable(loose);
            table.init(2);
            assertTrue(looseStore.claim(looseStore.read("slot-0").orElseThrow(), owner(7001, "a")));
            assertTrue(looseStore.renew("slot-0", 1, owner(7001, "a")));
            assertEquals(2, looseStore.readAll().size());
            assertTrue(looseStore.reclaim(looseStore.read("slot-0").orElseThrow(), owner(7001, "b")));
            assertTrue(table.forceRelease("slot-0").isPresent());
            assertTrue(looseStore.claim(looseStore.read("slot-1").orElseThrow(), owner(7002, "c")));
            assertTrue(looseStore.release("slot-1", 1, "c"));
        }
        assertTrue(commands.assertSafe("slots") >= 10, "reads and writes were checked: " + commands.on("slots"));
        assertTrue(commands.assertSafe("owners") >= 1, "the owner document's beat too: " + commands.on("owners"));
    }

    @Test
    void theSlotsCollectionHoldsSlotsAloneAndEachOwnerProcessHasOneDocumentInOwners() {
        new SlotTable(db).init(3);
        SlotStore.Ownership a = owner(7001, "a");
        SlotStore.Ownership b = owner(7002, "b");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        assertTrue(store.claim(slot("slot-1"), b.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(2));
        store.renewAll(Map.of("slot-1", 1L), b.withBeat(2));
        store.beat(owner(7003, "c").withBeat(1));

        // What an operator sees with db.slots.find() and db.owners.find() in mongosh.
        assertEquals(
                List.of("slot-0", "slot-1", "slot-2"),
                ids(db.database().getCollection(SlotFields.COLLECTION).find()));
        assertEquals(
                List.of(
                        OwnerDocRules.ownerId(a.node(), "a"),
                        OwnerDocRules.ownerId(b.node(), "b"),
                        OwnerDocRules.ownerId(new NodeId("127.0.0.1", 7003), "c")),
                ids(db.database().getCollection(SlotFields.OWNERS_COLLECTION).find()));
    }

    @Test
    void aPollIsOneCommandWhereTheServerKnowsUnionWithAndReadsTheSameOwnersWhereItDoesNot() {
        new SlotTable(db).init(2);
        SlotStore.Ownership a = owner(7001, "a");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(4));
        CommandLog commands = new CommandLog();
        try (StandbyDatabase watched = StandbyDatabase.connect(
                uri(), db.database().getName(), Duration.ofSeconds(10), s -> s.addCommandListener(commands))) {
            MongoSlotStore watchedStore = new MongoSlotStore(watched);
            NodeId other = new NodeId("127.0.0.1", 7009);
            for (int poll = 0; poll < 2; poll++) {
                SlotStore.Poll read = watchedStore.poll(other, Instant.EPOCH, FreeShare.ALL);
                assertEquals(
                        List.of("slot-1"),
                        read.slots().stream().map(SlotView::id).toList(),
                        "the free one");
                assertEquals(Map.of(OwnerDocRules.ownerId(a.node(), "a"), 4L), read.beats());
            }
            List<String> reads = commands.sequence().stream()
                    .filter(c -> c.startsWith("aggregate"))
                    .toList();
            assertEquals(
                    knowsUnionWith()
                            ? List.of("aggregate slots", "aggregate slots")
                            // The first try with $unionWith is refused; from then on the owners take a second read.
                            : List.of(
                                    "aggregate slots",
                                    "aggregate slots",
                                    "aggregate owners",
                                    "aggregate slots",
                                    "aggregate owners"),
                    reads);
        }
    }

    @Test
    void ownerDocumentsThatAnEarlierVersionLeftInTheSlotsAreSkippedAndSweptOnceTheyStoodStill() {
        new SlotTable(db).init(1);
        MongoCollection<Document> slots = db.database().getCollection(SlotFields.COLLECTION);
        Date now = new Date();
        String dead = OwnerDocRules.ownerId(new NodeId("127.0.0.1", 7001), "old");
        String live = OwnerDocRules.ownerId(new NodeId("127.0.0.1", 7002), "old");
        slots.insertOne(new Document("_id", dead)
                .append(SlotFields.BEAT, 9L)
                .append(
                        SlotFields.AT,
                        new Date(now.getTime() - Duration.ofMinutes(3).toMillis())));
        slots.insertOne(new Document("_id", live).append(SlotFields.BEAT, 9L).append(SlotFields.AT, now));

        assertEquals(
                List.of("slot-0"), store.readAll().stream().map(SlotView::id).toList());
        assertEquals(
                List.of("slot-0"),
                store.poll(new NodeId("127.0.0.1", 7009), Instant.EPOCH, FreeShare.ALL).slots().stream()
                        .map(SlotView::id)
                        .toList());
        assertEquals(1, store.sweepLegacyOwners(Duration.ofMinutes(2)), "the one that stood still for 3 minutes");
        assertEquals(List.of("slot-0", live), ids(slots.find()));
    }

    private static List<Object> ids(Iterable<Document> docs) {
        List<Object> ids = new ArrayList<>();
        docs.forEach(d -> ids.add(d.get("_id")));
        return ids;
    }

    @Test
    void initIsIdempotentAndGrows() {
        SlotTable table = new SlotTable(db);
        assertEquals(3, table.init(3));
        assertEquals(0, table.init(3));
        assertEquals(2, table.init(5));
        List<SlotView> slots = table.list();
        assertEquals(
                List.of("slot-0", "slot-1", "slot-2", "slot-3", "slot-4"),
                slots.stream().map(SlotView::id).toList());
        for (SlotView s : slots) {
            assertNull(s.owner());
            assertEquals(0, s.epoch());
            assertTrue(s.released());
        }
    }

    @Test
    void aClaimWinsOnlyAnExpiredSlotInTheVersionItSaw() {
        new SlotTable(db).init(1);
        SlotView free = slot("slot-0");

        assertTrue(store.claim(free, owner(7001, "a")));
        assertFalse(store.claim(free, owner(7002, "b")), "the version seen is gone");

        SlotView owned = slot("slot-0");
        assertEquals(1, owned.epoch());
        assertFalse(owned.expired());
        assertFalse(store.claim(owned, owner(7002, "b")), "live by the server's clock");
    }

    @Test
    void claimsSentTogetherWinExactlyTheSlotsStillInTheVersionSeenInOneWriteAndOneReadOfWhich() {
        new SlotTable(db).init(6);
        List<SlotView> seen = store.readAll();
        // Two of them change after the read: one is claimed by another node, one is claimed and released.
        assertTrue(store.claim(seen.get(1), owner(7002, "b")));
        assertTrue(store.claim(seen.get(4), owner(7003, "c")));
        assertTrue(store.release("slot-4", 1, "c"));
        CommandLog commands = new CommandLog();
        try (StandbyDatabase watched = StandbyDatabase.connect(
                uri(), db.database().getName(), Duration.ofSeconds(10), s -> s.addCommandListener(commands))) {
            MongoSlotStore watchedStore = new MongoSlotStore(watched);
            SlotStore.Ownership a = owner(7001, "a").withBeat(9);
            Set<String> won = watchedStore.claimAll(
                    seen.stream()
                            .map(slot -> new SlotStore.Claim(slot, OptionalLong.empty()))
                            .toList(),
                    a);

            assertEquals(Set.of("slot-0", "slot-2", "slot-3", "slot-5"), won);
            assertEquals(List.of("update slots", "find slots"), commands.sequence(), "one write, one read of which");
            for (String id : won) {
                SlotView mine = slot(id);
                assertEquals(1, mine.epoch(), id);
                assertEquals(new NodeId("127.0.0.1", 7001), mine.owner(), id);
                assertEquals("a", mine.instance(), id);
            }
            assertEquals("b", slot("slot-1").instance(), "another node's win stands");
            assertEquals(1, slot("slot-4").epoch(), "a version seen is gone even where the slot is free again");
            assertTrue(slot("slot-4").released());

            // All of them won: the write's count says so, and nothing more is read.
            new SlotTable(db).init(8);
            Set<String> all = watchedStore.claimAll(
                    List.of(
                            new SlotStore.Claim(slot("slot-6"), OptionalLong.empty()),
                            new SlotStore.Claim(slot("slot-7"), OptionalLong.empty())),
                    a.withBeat(10));
            assertEquals(Set.of("slot-6", "slot-7"), all);
            assertEquals(
                    List.of("update slots", "find slots", "update slots"),
                    commands.sequence(),
                    "the second batch: its write alone");
        }
    }

    @Test
    void claimsAtAnOwnersBeatSentTogetherWinOnlyTheSlotsAtThatBeatUnderThatInstance() {
        new SlotTable(db).init(3);
        SlotStore.Ownership b = owner(7002, "b");
        assertTrue(store.claim(slot("slot-0"), b.withBeat(4)));
        assertTrue(store.claim(slot("slot-1"), b.withBeat(5)));
        MongoCollection<Document> slots = db.database().getCollection("slots");
        slots.updateMany(
                Filters.in("_id", "slot-0", "slot-1"),
                Updates.set("time", Date.from(Instant.now().minusSeconds(10))));
        Set<String> won = store.claimAll(
                List.of(
                        new SlotStore.Claim(slot("slot-0"), OptionalLong.of(4)),
                        new SlotStore.Claim(slot("slot-1"), OptionalLong.of(4)),
                        // Free: there is no owner whose beat it could be at.
                        new SlotStore.Claim(slot("slot-2"), OptionalLong.of(4))),
                owner(7001, "a").withBeat(1));
        assertEquals(Set.of("slot-0"), won);
        assertEquals("b", slot("slot-1").instance());
        assertTrue(slot("slot-2").released());
    }

    /** Claimers send overlapping batches at once: each slot has one winner, and it is the one its document names. */
    @Test
    void concurrentBatchesOfClaimsGiveEachSlotOneWinner() throws Exception {
        int slots = 40;
        new SlotTable(db).init(slots);
        List<SlotView> seen = store.readAll();
        int claimers = 6;
        List<Callable<Set<String>>> racers = new ArrayList<>();
        for (int c = 0; c < claimers; c++) {
            SlotStore.Ownership me = owner(7100 + c, "i" + c).withBeat(1);
            List<SlotView> mine = new ArrayList<>(seen);
            java.util.Collections.shuffle(mine, new java.util.Random(c));
            racers.add(() -> {
                Set<String> won = new java.util.HashSet<>();
                for (int from = 0; from < slots; from += 8) {
                    won.addAll(store.claimAll(
                            mine.subList(from, from + 8).stream()
                                    .map(slot -> new SlotStore.Claim(slot, OptionalLong.empty()))
                                    .toList(),
                            me));
                }
                return won;
            });
        }
        Map<String, Integer> winner = new LinkedHashMap<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(claimers)) {
            List<Future<Set<String>>> results = pool.invokeAll(racers);
            for (int c = 0; c < claimers; c++) {
                for (String id : results.get(c).get()) {
                    Integer before = winner.put(id, c);
                    assertNull(before, id + " won by claimers " + before + " and " + c);
                }
            }
        }
        assertEquals(slots, winner.size(), "every slot was won: " + winner);
        winner.forEach((id, c) -> {
            SlotView now = slot(id);
            assertEquals("i" + c, now.instance(), id);
            assertEquals(1, now.epoch(), id + " was taken once");
        });
    }

    @Test
    void aRenewalOfManySlotsRenewsEachAtItsOwnEpochAndShowsTheOthersAsTheyAreNow() {
        new SlotTable(db).init(5);
        SlotStore.Ownership a = owner(7001, "a");
        for (int i = 0; i < 5; i++) {
            assertTrue(store.claim(slot("slot-" + i), a));
        }
        MongoCollection<Document> slots = db.database().getCollection("slots");
        // Every heartbeat ten seconds old, so that a renewal shows in the age.
        slots.updateMany(
                Filters.exists("_id"),
                Updates.set("time", Date.from(Instant.now().minusSeconds(10))));
        // slot-1 taken by another node, slot-2 released by an operator, slot-3 deleted; slot-4 is held at epoch
        // 1 while the renewal names epoch 0 (a lease that ended before the slot was taken back).
        slots.updateOne(
                Filters.eq("_id", "slot-1"),
                Updates.combine(Updates.set("instance", "b"), Updates.set("port", 7002), Updates.inc("epoch", 1L)));
        assertTrue(new SlotTable(db).forceRelease("slot-2").isPresent());
        slots.deleteOne(Filters.eq("_id", "slot-3"));
        Map<String, Long> held = new LinkedHashMap<>();
        for (int i = 0; i < 4; i++) {
            held.put("slot-" + i, 1L);
        }
        held.put("slot-4", 0L);

        SlotStore.Renewals renewals = store.renewAll(held, a);

        assertEquals(Set.of("slot-0"), renewals.renewed());
        assertTrue(
                slot("slot-0").age().compareTo(Duration.ofSeconds(5)) < 0,
                "slot-0's heartbeat is new: " + slot("slot-0").age());
        assertEquals(
                Set.of("slot-1", "slot-2", "slot-4"), renewals.others().keySet(), "slot-3 is in neither: it is gone");
        assertEquals("b", renewals.others().get("slot-1").instance());
        assertNull(renewals.others().get("slot-2").owner());
        assertEquals(2, renewals.others().get("slot-2").epoch());
        assertEquals(1, renewals.others().get("slot-4").epoch());
        for (String notRenewed : List.of("slot-1", "slot-4")) {
            assertTrue(slot(notRenewed).age().compareTo(Duration.ofSeconds(9)) > 0, notRenewed + " was not touched");
        }
    }

    @Test
    void aRenewalOfManySlotsIsTheOwnersBeatThenOneCommandAndAReadOnlyWhenOneWasLost() {
        new SlotTable(db).init(20);
        SlotStore.Ownership a = owner(7001, "a");
        Map<String, Long> held = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            assertTrue(store.claim(slot("slot-" + i), a));
            held.put("slot-" + i, 1L);
        }
        CommandLog commands = new CommandLog();
        try (StandbyDatabase watched = StandbyDatabase.connect(
                uri(),
                db.database().getName(),
                Duration.ofSeconds(10),
                settings -> settings.addCommandListener(commands))) {
            MongoSlotStore watchedStore = new MongoSlotStore(watched);

            assertEquals(held.keySet(), watchedStore.renewAll(held, a).renewed());
            // The owner document first: no slot carries a beat before its owner document does.
            assertEquals(List.of("update owners", "update slots"), commands.sequence());

            db.database().getCollection("slots").updateOne(Filters.eq("_id", "slot-7"), Updates.inc("epoch", 1L));
            assertEquals(19, watchedStore.renewAll(held, a).renewed().size());
            assertEquals(
                    List.of("update owners", "update slots", "update owners", "update slots", "aggregate slots"),
                    commands.sequence());
        }
    }

    @Test
    void aRenewalRaisesItsOwnersDocumentAndWritesTheSameBeatIntoEachSlotAndAClaimWritesItsOwn() {
        new SlotTable(db).init(3);
        SlotStore.Ownership a = owner(7001, "a");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        assertTrue(store.claim(slot("slot-1"), a.withBeat(2)));
        assertEquals(2, slot("slot-1").beat(), "a claim writes its own beat");
        assertEquals(
                List.of(),
                store.poll(new NodeId("127.0.0.1", 7009), Instant.EPOCH, FreeShare.ALL)
                        .owners(),
                "no renewal yet: no document");

        store.renewAll(Map.of("slot-0", 1L, "slot-1", 1L), a.withBeat(5));

        SlotStore.OwnerBeat doc = store.poll(new NodeId("127.0.0.1", 7009), Instant.EPOCH, FreeShare.ALL)
                .owners()
                .getFirst();
        assertEquals("a", doc.instance());
        assertEquals(new NodeId("127.0.0.1", 7001), doc.node());
        assertEquals(5, doc.beat());
        assertTrue(doc.age().compareTo(Duration.ofSeconds(5)) < 0, "stamped by the server: " + doc.age());
        assertEquals(5, slot("slot-0").beat());
        assertEquals(5, slot("slot-1").beat());
        assertEquals(0, slot("slot-2").beat());

        // A renewal delivered late, after a newer one: the beat does not go back, in the document or the slots.
        store.renewAll(Map.of("slot-0", 1L, "slot-1", 1L), a.withBeat(4));
        assertEquals(
                5,
                store.poll(new NodeId("127.0.0.1", 7009), Instant.EPOCH, FreeShare.ALL)
                        .owners()
                        .getFirst()
                        .beat());
        assertEquals(5, slot("slot-0").beat());
        assertEquals(3, store.readAll().size(), "the owner document is not a slot");
        assertTrue(store.read(OwnerDocRules.ownerId(a.node(), "a")).isEmpty());
    }

    /**
     * An owner covered by a watch link stops writing its late mark, and stops pausing by it once a renewal without the
     * mark is acknowledged. A renewal sent earlier, with the mark, that lands only now must not put the mark back: a
     * standby could then take the slot early from an owner that no longer pauses.
     */
    @Test
    void aRenewalDeliveredAfterANewerOneChangesNothingInTheSlotSoAnOldLateMarkNeverComesBack() {
        new SlotTable(db).init(1);
        assertTrue(store.claim(slot("slot-0"), pausingOwner(7001, "a").withBeat(1)));
        assertTrue(store.renewAll(Map.of("slot-0", 1L), owner(7001, "a").withBeat(5))
                .renewed()
                .contains("slot-0"));
        SlotView renewed = slot("slot-0");
        assertNull(renewed.lateMark(), "the newer renewal wrote no mark");

        store.renewAll(Map.of("slot-0", 1L), pausingOwner(7001, "a").withBeat(4));

        SlotView after = slot("slot-0");
        assertNull(after.lateMark(), "the late copy put its mark back");
        assertEquals(5, after.beat());
        assertEquals(renewed.time(), after.time(), "the late copy moved the heartbeat");
        assertTrue(
                store.renewAll(Map.of("slot-0", 1L), owner(7001, "a").withBeat(5))
                        .renewed()
                        .contains("slot-0"),
                "a copy of the same renewal still counts: the driver may send a write twice");
    }

    @Test
    void theCensusCountsEachSlotInTheStateItsDocumentShowsAndNoOwnerDocument() {
        new SlotTable(db).init(7);
        SlotStore.Ownership a = owner(7001, "a");
        for (String id : List.of("slot-0", "slot-1", "slot-3", "slot-5", "slot-6")) {
            assertTrue(store.claim(slot(id), a));
        }
        assertTrue(store.release("slot-5", 1, "a"));
        assertTrue(store.revoke(slot("slot-6")));
        store.beat(a.withBeat(1));
        db.database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-3"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(600))));
        Map<SlotState, Long> read = new EnumMap<>(SlotState.class);
        store.readAll().forEach(slot -> read.merge(slot.state(), 1L, Long::sum));
        assertEquals(
                Map.of(SlotState.OWNED, 2L, SlotState.EXPIRED, 1L, SlotState.REVOKED, 1L, SlotState.FREE, 3L),
                read,
                "two renewed, one late, one revoked; two never owned and one released");

        assertEquals(read, store.census(), "the server's count, by the same rules as the slots read");
        assertEquals(
                Map.of(SlotState.OWNED, 2L, SlotState.EXPIRED, 1L, SlotState.REVOKED, 1L, SlotState.FREE, 3L),
                new SlotTable(db).countByState());
    }

    @Test
    void aPollReadsTheOwnerDocumentsTheFreeSlotsItsOwnAddressesAndTheLateOnesOnly() {
        new SlotTable(db).init(7);
        SlotStore.Ownership a = owner(7001, "a");
        SlotStore.Ownership me = owner(7002, "m");
        for (String id : List.of("slot-0", "slot-1", "slot-3", "slot-6")) {
            assertTrue(store.claim(slot(id), a));
        }
        assertTrue(store.claim(slot("slot-2"), me));
        assertTrue(store.claim(slot("slot-5"), a));
        assertTrue(store.release("slot-5", 1, "a"));
        assertTrue(store.revoke(slot("slot-6")));
        store.renewAll(Map.of("slot-0", 1L, "slot-1", 1L, "slot-3", 1L), a);
        MongoCollection<Document> slots = db.database().getCollection("slots");
        slots.updateOne(
                Filters.eq("_id", "slot-3"),
                Updates.set("time", Date.from(Instant.now().minusSeconds(10))));

        SlotStore.Poll poll = store.poll(me.node(), Instant.now().minusSeconds(3), FreeShare.ALL);

        assertEquals(
                List.of("slot-2", "slot-3", "slot-4", "slot-5", "slot-6"),
                poll.slots().stream().map(SlotView::id).toList(),
                "its own, the late one, the never-owned, the released and the revoked; "
                        + "not the two a live owner renews");
        assertEquals(Map.of(OwnerDocRules.ownerId(a.node(), "a"), 0L), poll.beats());
        assertTrue(
                Duration.between(poll.serverNow(), Instant.now()).abs().compareTo(Duration.ofSeconds(5)) < 0,
                "the server's time");
    }

    @Test
    void aClaimAtAnOwnersBeatWinsOnlyTheSlotAtThatBeatUnderThatInstance() {
        new SlotTable(db).init(1);
        SlotStore.Ownership a = owner(7001, "a");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(5));
        MongoCollection<Document> slots = db.database().getCollection("slots");
        slots.updateOne(
                Filters.eq("_id", "slot-0"),
                Updates.set("time", Date.from(Instant.now().minusSeconds(10))));
        SlotView expired = slot("slot-0");
        assertTrue(expired.expired());

        assertFalse(store.claim(expired, owner(7002, "b"), OptionalLong.of(4)), "a beat the slot does not carry");
        slots.updateOne(Filters.eq("_id", "slot-0"), Updates.set("instance", "a2"));
        assertFalse(store.claim(expired, owner(7002, "b"), OptionalLong.of(5)), "the slot is another instance's now");
        slots.updateOne(Filters.eq("_id", "slot-0"), Updates.set("instance", "a"));
        assertTrue(store.claim(expired, owner(7002, "b"), OptionalLong.of(5)));
        assertEquals(2, slot("slot-0").epoch());
    }

    @Test
    void aClaimFromAGoneOwnerAtItsBeatWinsOnlyTheSlotAtThatBeat() {
        new SlotTable(db).init(1);
        SlotStore.Ownership a = new SlotStore.Ownership(
                new NodeId("127.0.0.1", 7001), "a", Duration.ofSeconds(60), Duration.ofSeconds(4));
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(5));
        db.database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(10))));
        SlotView late = slot("slot-0");
        assertTrue(late.isLate());

        assertFalse(
                store.claimFromGone(late, owner(7002, "b"), OptionalLong.of(1)), "the claim's beat, not the renewal's");
        assertTrue(store.claimFromGone(late, owner(7002, "b"), OptionalLong.of(5)));
    }

    @Test
    void aClaimByAWatchLinkWinsALiveLeaseOnlyAtABeatUpToTheLinksUnderThatInstanceAndVersionOnceTheMarkAged() {
        new SlotTable(db).init(1);
        Duration wait = Duration.ofMillis(1100);
        SlotStore.Ownership a = owner(7001, "a");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(5));
        MongoCollection<Document> slots = db.database().getCollection("slots");
        assertFalse(store.claimFromWatched(slot("slot-0"), owner(7002, "b"), 5, wait), "no mark of the link's end");
        assertEquals(1, store.markLinkEnd(a.node(), "a"));
        assertEquals(0, store.markLinkEnd(a.node(), "a2"), "another instance holds nothing");
        SlotView marked = slot("slot-0");
        assertTrue(marked.linkEnd().compareTo(wait) < 0);
        assertFalse(
                store.claimFromWatched(marked, owner(7002, "b"), 5, wait),
                "the mark has not aged by the server's clock");
        slots.updateOne(
                Filters.eq("_id", "slot-0"),
                Updates.set("linkEnd", Date.from(Instant.now().minusSeconds(10))));
        SlotView live = slot("slot-0");
        assertFalse(live.expired(), "no lease or late mark is judged: the owner paused at the link's deadline");

        assertFalse(
                store.claimFromWatched(live, owner(7002, "b"), 4, wait), "the slot carries a beat the link never sent");
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(6));
        assertFalse(
                store.claimFromWatched(live, owner(7002, "b"), 5, wait), "renewed since it was read, at a higher beat");
        assertFalse(store.claimFromWatched(live, owner(7002, "b"), 6, wait), "at the version read: renewed since");
        SlotView renewed = slot("slot-0");
        assertFalse(
                store.claimFromWatched(renewed, owner(7002, "b"), 5, wait),
                "a renewal after the link's end outran the claim");
        slots.updateOne(Filters.eq("_id", "slot-0"), Updates.set("instance", "a2"));
        assertFalse(store.claimFromWatched(renewed, owner(7002, "b"), 9, wait), "another instance's now");
        slots.updateOne(Filters.eq("_id", "slot-0"), Updates.set("instance", "a"));
        assertFalse(
                store.claimFromWatched(renewed, owner(7002, "b"), 6, Duration.ofSeconds(11)),
                "the mark is 10 s old, not 11");
        assertTrue(store.claimFromWatched(renewed, owner(7002, "b"), 6, wait));
        SlotView taken = slot("slot-0");
        assertEquals(2, taken.epoch());
        assertEquals(new NodeId("127.0.0.1", 7002), taken.owner());
        assertFalse(store.claimFromWatched(renewed, owner(7003, "c"), 6, wait), "one claim per version");
    }

    @Test
    void everyTakeClearsTheMarkOfADeadLinkAndAStaleDrainRequest() {
        new SlotTable(db).init(1);
        MongoCollection<Document> slots = db.database().getCollection("slots");
        SlotStore.Ownership a = owner(7001, "a");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        markAgedLinkEndAndDrain(slots, a);
        assertTrue(store.claimFromWatched(slot("slot-0"), owner(7002, "b").withBeat(2), 1, Duration.ofMillis(1100)));
        assertTakeCleared("a claim by a watch link", slot("slot-0"));

        SlotStore.Ownership b = owner(7002, "b");
        markAgedLinkEndAndDrain(slots, b);
        assertTrue(store.reclaim(slot("slot-0"), owner(7002, "b2").withBeat(3)));
        assertTakeCleared("a take-back", slot("slot-0"));

        SlotStore.Ownership b2 = owner(7002, "b2");
        markAgedLinkEndAndDrain(slots, b2);
        slots.updateOne(
                Filters.eq("_id", "slot-0"),
                Updates.set("time", Date.from(Instant.now().minusSeconds(60))));
        assertTrue(store.claim(slot("slot-0"), owner(7003, "c").withBeat(4)));
        assertTakeCleared("a claim after the lease", slot("slot-0"));
    }

    /**
     * A standby's mark of a dead link, aged by 10 s, and an operator's drain request, on every slot of {@code owner}.
     */
    private void markAgedLinkEndAndDrain(MongoCollection<Document> slots, SlotStore.Ownership owner) {
        assertEquals(1, store.markLinkEnd(owner.node(), owner.instance()));
        assertEquals(1, store.markDrain(owner.node(), SlotView.Drain.asked(owner.instance())));
        slots.updateOne(
                Filters.eq("_id", "slot-0"),
                Updates.set("linkEnd", Date.from(Instant.now().minusSeconds(10))));
        assertTrue(slot("slot-0").linkEnd().compareTo(Duration.ofSeconds(9)) > 0);
    }

    private static void assertTakeCleared(String how, SlotView taken) {
        assertNull(
                taken.linkEnd(),
                how + " leaves no mark of an earlier owner's link: the server's half of a link's wait"
                        + " would be over before a standby marked this owner");
        assertNull(taken.drain(), how + " leaves no drain request of an earlier owner");
    }

    @Test
    void anOwnerDocumentCarriesTheWatchPortAndWatchLeaseItsRenewalsWrite() {
        new SlotTable(db).init(1);
        SlotStore.Ownership a = owner(7001, "a").withWatch(new SlotStore.Watch(40123, Duration.ofMillis(800)));
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(5));
        SlotStore.OwnerBeat doc =
                store
                        .poll(new NodeId("127.0.0.1", 7002), Instant.now().minusSeconds(60), FreeShare.ALL)
                        .owners()
                        .stream()
                        .filter(o -> o.instance().equals("a"))
                        .findFirst()
                        .orElseThrow();
        assertEquals(
                new SlotStore.Watch(40123, Duration.ofMillis(800)),
                doc.watch(),
                "a standby takes the watch lease from here, written through the database, not from the wire");
        assertEquals(5, doc.beat());
    }

    @Test
    void anOwnerDocumentIsSweptOnlyAtTheBeatSeenComesBackWithTheNextRenewalAndGoesOnLeave() {
        new SlotTable(db).init(1);
        SlotStore.Ownership a = owner(7001, "a");
        assertTrue(store.claim(slot("slot-0"), a.withBeat(1)));
        store.renewAll(Map.of("slot-0", 1L), a.withBeat(5));
        NodeId other = new NodeId("127.0.0.1", 7009);

        String doc = OwnerDocRules.ownerId(a.node(), "a");
        assertFalse(store.sweepOwner(doc, 4), "it moved on since");
        assertTrue(store.sweepOwner(doc, 5));
        assertEquals(List.of(), store.poll(other, Instant.EPOCH, FreeShare.ALL).owners());

        assertEquals(
                Set.of("slot-0"),
                store.renewAll(Map.of("slot-0", 1L), a.withBeat(6)).renewed(),
                "the slot is renewed as before");
        assertEquals(
                Map.of(doc, 6L), store.poll(other, Instant.EPOCH, FreeShare.ALL).beats());
        store.removeOwner(doc);
        assertEquals(List.of(), store.poll(other, Instant.EPOCH, FreeShare.ALL).owners());
    }

    @Test
    void renewalAndReleaseNeedTheOwnersEpochAndInstance() {
        new SlotTable(db).init(1);
        store.claim(slot("slot-0"), owner(7001, "a"));

        assertFalse(store.renew("slot-0", 0, owner(7001, "a")), "old epoch");
        assertFalse(store.renew("slot-0", 1, owner(7001, "other")), "other instance");
        assertTrue(store.renew("slot-0", 1, owner(7001, "a")));

        assertFalse(store.release("slot-0", 1, "other"));
        assertTrue(store.release("slot-0", 1, "a"));
        SlotView released = slot("slot-0");
        assertTrue(released.released());
        assertEquals(1, released.epoch());
        assertEquals(Instant.EPOCH, released.time());
    }

    @Test
    void aClaimMatchesAHeartbeatTheServerStamped() {
        new SlotTable(db).init(1);
        store.claim(slot("slot-0"), owner(7001, "a"));
        assertTrue(store.renew("slot-0", 1, owner(7001, "a")));
        // Expire it by shortening the lease, leaving the server-stamped heartbeat as it is.
        db.database().getCollection("slots").updateOne(Filters.eq("_id", "slot-0"), Updates.set("lease", 1L));
        await().atMost(Duration.ofSeconds(5)).until(() -> slot("slot-0").expired());
        SlotView expired = slot("slot-0");

        assertTrue(store.claim(expired, owner(7002, "b")), "the heartbeat read back identifies the version");
    }

    @Test
    void theReadBeforeJoiningReturnsExactlyTheSlotsHeldUnderThatAddressAsTheFullReadShowsThem() {
        new SlotTable(db).init(4);
        store.claim(slot("slot-0"), owner(7001, "a"));
        store.claim(slot("slot-2"), owner(7001, "a"));
        store.claim(slot("slot-1"), owner(7002, "b"));
        store.claim(slot("slot-3"), new SlotStore.Ownership(new NodeId("127.0.0.2", 7001), "c", LEASE));

        List<SlotView> held = store.readHeldBy(new NodeId("127.0.0.1", 7001));
        assertEquals(
                List.of("slot-0", "slot-2"), held.stream().map(SlotView::id).toList());
        List<SlotView> all = store.readAll();
        for (SlotView slot : held) {
            SlotView full = all.stream()
                    .filter(s -> s.id().equals(slot.id()))
                    .findFirst()
                    .orElseThrow();
            assertEquals(
                    List.of(full.owner(), full.instance(), full.epoch(), full.time(), full.expired()),
                    List.of(slot.owner(), slot.instance(), slot.epoch(), slot.time(), slot.expired()));
        }
        assertEquals(List.of(), store.readHeldBy(new NodeId("127.0.0.1", 7009)));
    }

    /** An owner with fast failover: it writes its late mark (3 s) and pauses its robots before it is that late. */
    private static SlotStore.Ownership pausingOwner(int port, String instance) {
        return new SlotStore.Ownership(new NodeId("127.0.0.1", port), instance, LEASE, Duration.ofSeconds(3));
    }

    /** The server sees the slot's last heartbeat {@code seconds} ago, version otherwise unchanged. */
    private SlotView heartbeatAgo(int seconds) {
        db.database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(seconds))));
        return slot("slot-0");
    }

    @Test
    void aClaimFromAGoneOwnerWinsALiveSlotOnlyInTheExactVersionOwnerIncludedThatItSaw() {
        new SlotTable(db).init(1);
        assertFalse(
                store.claimFromGone(slot("slot-0"), pausingOwner(7002, "b")), "a free slot has no owner to be gone");
        store.claim(slot("slot-0"), pausingOwner(7001, "a"));
        SlotView seen = heartbeatAgo(4);
        assertFalse(seen.expired());
        assertTrue(seen.isLate());
        assertEquals(Duration.ofSeconds(3), seen.lateMark(), "the owner's late mark, as it wrote it");

        SlotView otherInstance = SlotView.of(
                        seen.id(), seen.owner(), "a-restarted", seen.time(), seen.lease(), seen.epoch(), seen.age())
                .withChanges(seen.changes())
                .withLateMark(seen.lateMark())
                .withDrain(seen.drain());
        assertFalse(
                store.claimFromGone(otherInstance, pausingOwner(7002, "b")),
                "another process of that identity holds it");
        assertTrue(store.renew("slot-0", 1, pausingOwner(7001, "a")));
        assertFalse(
                store.claimFromGone(seen, pausingOwner(7002, "b")), "the owner renewed since the read: it is not gone");

        SlotView renewed = slot("slot-0");
        assertFalse(
                store.claimFromGone(renewed, pausingOwner(7002, "b")),
                "a version the server does not see late yet: its owner may still be running its robots");

        SlotView late = heartbeatAgo(4);
        assertTrue(store.claimFromGone(late, pausingOwner(7002, "b")));
        SlotView taken = slot("slot-0");
        assertEquals(new NodeId("127.0.0.1", 7002), taken.owner());
        assertEquals("b", taken.instance());
        assertEquals(2, taken.epoch());
        assertEquals(Duration.ofSeconds(3), taken.lateMark());
        assertFalse(store.renew("slot-0", 1, pausingOwner(7001, "a")), "the former owner is fenced");
        assertFalse(store.claimFromGone(late, pausingOwner(7003, "c")), "one winner");
    }

    /**
     * An owner that wrote no late mark (fast failover off on it, or a version before marks existed) never paused its
     * robots at one, so no standby takes its slot before the lease ends, however late it is and whatever its view says.
     */
    @Test
    void aClaimFromAGoneOwnerNeverWinsASlotWhoseOwnerWroteNoLateMark() {
        new SlotTable(db).init(1);
        store.claim(slot("slot-0"), owner(7001, "a"));
        SlotView late = heartbeatAgo(4);
        assertNull(late.lateMark());
        assertFalse(late.isLate());

        SlotView claimedLate = SlotView.of(
                        late.id(), late.owner(), late.instance(), late.time(), late.lease(), late.epoch(), late.age())
                .withChanges(late.changes())
                .withLateMark(Duration.ofSeconds(3))
                .withDrain(late.drain());
        assertFalse(
                store.claimFromGone(claimedLate, pausingOwner(7002, "b")),
                "the document has no mark, whatever the view says");
        assertEquals("a", slot("slot-0").instance());

        assertTrue(store.renew("slot-0", 1, pausingOwner(7001, "a")), "an owner that turns fast failover on");
        assertEquals(Duration.ofSeconds(3), slot("slot-0").lateMark());
        assertTrue(store.renew("slot-0", 1, owner(7001, "a")), "and off again");
        assertNull(slot("slot-0").lateMark(), "its renewal removes the mark");
        store.release("slot-0", 1, "a");
        assertNull(slot("slot-0").lateMark());
    }

    @Test
    void aDrainRequestMarksOnlyTheSlotsOfThatInstanceAndChangesNothingOfTheirLeases() {
        new SlotTable(db).init(3);
        assertTrue(store.claim(slot("slot-0"), owner(7001, "a")));
        assertTrue(store.claim(slot("slot-1"), owner(7001, "a")));
        assertTrue(store.claim(slot("slot-2"), owner(7002, "b")));
        SlotView before = slot("slot-0");

        assertEquals(
                0,
                store.markDrain(new NodeId("127.0.0.1", 7001), SlotView.Drain.forced("a-restarted")),
                "another instance of that address");
        assertEquals(2, store.markDrain(new NodeId("127.0.0.1", 7001), SlotView.Drain.asked("a")));

        SlotView after = slot("slot-0");
        assertEquals(new SlotView.Drain("a", false), after.drain());
        assertTrue(after.drainAsked("a"));
        assertFalse(after.drainAsked("a-restarted"));
        assertEquals(
                List.of(
                        before.owner(),
                        before.instance(),
                        before.epoch(),
                        before.time(),
                        before.lease(),
                        before.changes()),
                List.of(after.owner(), after.instance(), after.epoch(), after.time(), after.lease(), after.changes()));
        assertEquals(after.drain(), store.readAll().getFirst().drain(), "the poll's read shows it too");
        assertNull(slot("slot-2").drain());
        assertTrue(store.renew("slot-0", 1, owner(7001, "a")), "the lease renews as before");
        assertTrue(store.release("slot-0", 1, "a"));
        assertNull(slot("slot-0").drain(), "a release clears it: it is not the next owner's");
        assertEquals(new SlotView.Drain("a", false), slot("slot-1").drain());
    }

    @Test
    void onlyTheSameIdentityTakesBackALiveSlot() {
        new SlotTable(db).init(1);
        store.claim(slot("slot-0"), owner(7001, "a"));
        SlotView live = slot("slot-0");

        assertFalse(store.reclaim(live, owner(7002, "b")), "another identity");
        assertTrue(store.reclaim(live, owner(7001, "a2")));
        assertEquals("a2", slot("slot-0").instance());
        assertEquals(2, slot("slot-0").epoch());
    }

    @Test
    void expiryIsJudgedByTheServersClockAndTheLeaseInTheDocument() {
        new SlotTable(db).init(1);
        store.claim(slot("slot-0"), owner(7001, "a"));
        // A heartbeat 6 s old under a 5 s lease is expired; under a 60 s lease it is not.
        db.database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.combine(
                                Updates.set("time", Date.from(Instant.now().minusSeconds(6))),
                                Updates.set("lease", 60_000L)));
        assertFalse(slot("slot-0").expired());
        assertFalse(store.claim(slot("slot-0"), owner(7002, "b")));

        db.database().getCollection("slots").updateOne(Filters.eq("_id", "slot-0"), Updates.set("lease", 5_000L));
        assertTrue(slot("slot-0").expired());
        assertTrue(store.claim(slot("slot-0"), owner(7002, "b")));
    }

    /**
     * Threads race for one slot; each winner does non-atomic work (read, pause, write back plus one) and releases.
     * Overlapping winners would lose increments, and a double win would show as more wins than epoch increments. Reads
     * run concurrently with writes, which is what exposes a store that hands out torn documents.
     */
    @Test
    void contendedClaimsGiveExactlyOneWinnerAtATime() throws Exception {
        new SlotTable(db).init(1);
        int threads = 8;
        int winsEach = 25;
        AtomicInteger counter = new AtomicInteger();
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        AtomicInteger failedReleases = new AtomicInteger();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<Callable<Integer>> racers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            SlotStore.Ownership me = owner(7000 + t, "i" + t);
            racers.add(() -> {
                int wins = 0;
                // A broken exclusivity stops every racer at once, so the assertions below report it.
                while (wins < winsEach
                        && maxHolders.get() <= 1
                        && failedReleases.get() == 0
                        && System.nanoTime() < deadline) {
                    // The poll's read: one aggregation, which may leave a document out under contention.
                    SlotView seen = store.readAll().stream()
                            .filter(s -> s.id().equals("slot-0"))
                            .findFirst()
                            .orElse(null);
                    if (seen == null || !seen.released() || !store.claim(seen, me)) {
                        continue;
                    }
                    maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
                    int value = counter.get();
                    // A sleep on purpose: it widens the read-modify-write of the work, so that two holders at
                    // once would lose an increment and the exact count below would show it.
                    Thread.sleep(1);
                    counter.set(value + 1);
                    holders.decrementAndGet();
                    if (!store.release("slot-0", seen.epoch() + 1, me.instance())) {
                        failedReleases.incrementAndGet();
                    }
                    wins++;
                }
                return wins;
            });
        }
        int total = 0;
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (Future<Integer> f : pool.invokeAll(racers)) {
                total += f.get();
            }
        }
        assertEquals(1, maxHolders.get(), "two racers held the slot at once");
        assertEquals(0, failedReleases.get(), "a winner no longer owned the slot it won");
        assertEquals(threads * winsEach, total);
        assertEquals(total, counter.get(), "an increment was lost: two winners overlapped");
        assertEquals(total, slot("slot-0").epoch(), "every win incremented the epoch exactly once");
    }
}
