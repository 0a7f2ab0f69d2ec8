package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.FreeShare;
import io.standby.slot.internal.SlotRules;
import io.standby.slot.internal.SlotStore.Ownership;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What makes {@link BsonEval} trustworthy: it and the embedded server agree on every rule the stores send, filter and
 * update, over documents that cover each branch of each condition, missing fields and nulls included. Each rule is
 * applied both ways, and the matched counts and resulting documents compared (a time written by {@code $currentDate}
 * need only fall within the call, on both sides).
 */
class BsonEvalTest {

    private static final long HOUR = 3_600_000;
    private static TestMongo.Embedded server;
    private static StandbyDatabase db;
    private static MongoCollection<BsonDocument> collection;

    @BeforeAll
    static void start() {
        server = TestMongo.startEmbedded();
        db = StandbyDatabase.connect(server.uri(), TestMongo.freshDatabase("bsoneval"), Duration.ofSeconds(10), null);
        collection = db.database().getCollection("docs", BsonDocument.class);
    }

    @AfterAll
    static void stop() {
        db.database().drop();
        db.close();
        server.close();
    }

    private record Rule(String name, Bson filter, Bson update, boolean many) {}

    private static final NodeId OWNER = new NodeId("10.0.0.1", 7700);
    private static final NodeId OTHER = new NodeId("10.0.0.2", 7700);

    /** A slot held by OWNER's instance i1 at epoch 3, its heartbeat {@code ageMs} old, with a late mark. */
    private static Document slot(long ageMs) {
        return new Document("_id", "s")
                .append("ip", OWNER.ip())
                .append("port", OWNER.port())
                .append("time", new Date(System.currentTimeMillis() - ageMs))
                .append("lease", 5_000L)
                .append("epoch", 3L)
                .append("instance", "i1")
                .append("late", 2_000L)
                .append("changes", 0L)
                .append("beat", 7L)
                .append("drain", null);
    }

    private static List<Document> slots() {
        List<Document> docs = new ArrayList<>();
        for (long age : List.of(1_000L, 3_000L, HOUR)) { // fresh; late but not expired; expired
            docs.add(slot(age));
        }
        Document expired = slot(HOUR);
        List<UnaryOperator<Document>> variants = List.of(
                d -> d.append("epoch", 2L),
                d -> d.append("epoch", 3),
                d -> d.append("epoch", 3.0),
                d -> d.append("ip", OTHER.ip()),
                d -> d.append("port", 7701),
                d -> d.append("port", 7700L),
                d -> d.append("instance", "i2"),
                d -> d.append("instance", null),
                d -> without(d, "instance"),
                d -> d.append("late", null),
                d -> without(d, "late"),
                d -> d.append("beat", 8L),
                d -> d.append("beat", 7),
                d -> d.append("beat", 6.5),
                d -> without(d, "beat"),
                d -> d.append("late", 0L),
                d -> d.append("late", 3 * HOUR),
                d -> d.append("late", "soon"),
                d -> without(d, "lease"),
                d -> d.append("lease", null),
                d -> d.append("lease", 3 * HOUR),
                d -> d.append("time", d.getDate("time").getTime() + ""),
                d -> without(d, "changes"),
                d -> d.append("changes", 4),
                d -> d.append("drain", new Document("instance", "i1").append("force", true)),
                d -> d.append("ip", null).append("port", null).append("instance", null),
                d -> without(without(without(d, "ip"), "port"), "instance"));
        for (UnaryOperator<Document> variant : variants) {
            docs.add(variant.apply(new Document(expired)));
        }
        docs.add(SlotRules.unowned("s"));
        docs.add(SlotRules.unowned("s").append("bucket", SlotRules.bucket("s") + 1));
        docs.add(without(SlotRules.unowned("s"), "bucket"));
        docs.add(SlotRules.unowned("s").append("time", new Date(System.currentTimeMillis() - HOUR)));
        Document released = slot(0).append("ip", null)
                .append("port", null)
                .append("instance", null)
                .append("time", new Date(0));
        released.remove("late");
        released.remove("drain");
        docs.add(released);
        return docs;
    }

    private static Document without(Document doc, String field) {
        doc.remove(field);
        return doc;
    }

    /**
     * Every slot rule, as seen on {@link #slot} (owner, instance, epoch 3, late mark) with the heartbeat of
     * {@code seenTime}.
     */
    private static List<Rule> slotRules(Date seenTime) {
        SlotView seen = SlotView.of("s", OWNER, "i1", seenTime.toInstant(), Duration.ofSeconds(5), 3, Duration.ZERO)
                .withLateMark(Duration.ofSeconds(2));
        Ownership other = new Ownership(OTHER, "i2", Duration.ofSeconds(5), Duration.ofSeconds(2));
        Ownership noMark = new Ownership(OTHER, "i2", Duration.ofSeconds(5));
        Ownership self = new Ownership(OWNER, "i3", Duration.ofSeconds(5));
        Ownership renewer = new Ownership(OWNER, "i1", Duration.ofSeconds(5), Duration.ofSeconds(2), 7);
        List<Rule> rules = new ArrayList<>();
        rules.add(new Rule("claim", SlotRules.claimFilter(seen), SlotRules.takeUpdate(other), false));
        rules.add(new Rule("claim, no late mark", SlotRules.claimFilter(seen), SlotRules.takeUpdate(noMark), false));
        rules.add(new Rule("claimFromGone", SlotRules.claimFromGoneFilter(seen), SlotRules.takeUpdate(other), false));
        rules.add(new Rule("reclaim", SlotRules.reclaimFilter(seen, self), SlotRules.takeUpdate(self), false));
        rules.add(new Rule(
                "reclaim by another", SlotRules.reclaimFilter(seen, other), SlotRules.takeUpdate(other), false));
        rules.add(new Rule("renew", SlotRules.renewFilter("s", 3, "i1"), SlotRules.renewUpdate(other), false));
        rules.add(new Rule(
                "renew, no late mark", SlotRules.renewFilter("s", 3, "i1"), SlotRules.renewUpdate(noMark), false));
        rules.add(new Rule(
                "renew, null instance", SlotRules.renewFilter("s", 3, null), SlotRules.renewUpdate(noMark), false));
        rules.add(new Rule(
                "renew all",
                SlotRules.renewAllFilter(Map.of("t", 3L, "s", 3L), renewer),
                SlotRules.renewUpdate(renewer),
                true));
        rules.add(new Rule(
                "renew all, other epochs",
                SlotRules.renewAllFilter(Map.of("s", 2L, "t", 3L), renewer),
                SlotRules.renewUpdate(renewer),
                true));
        rules.add(new Rule(
                "renew all, an earlier beat",
                SlotRules.renewAllFilter(Map.of("s", 3L), renewer.withBeat(6)),
                SlotRules.renewUpdate(renewer.withBeat(6)),
                true));
        rules.add(new Rule(
                "renew all, another instance",
                SlotRules.renewAllFilter(Map.of("s", 3L), noMark.withBeat(9)),
                SlotRules.renewUpdate(noMark.withBeat(9)),
                true));
        rules.add(new Rule("release", SlotRules.releaseFilter("s", 3, "i1"), SlotRules.releaseUpdate(), false));
        rules.add(new Rule("revoke", SlotRules.revokeFilter(seen), SlotRules.revokeUpdate(seen), false));
        rules.add(new Rule(
                "markDrain",
                SlotRules.markDrainFilter(OWNER, "i1"),
                SlotRules.markDrainUpdate(SlotView.Drain.asked("i1")),
                true));
        rules.add(new Rule("touch", SlotRules.touchFilter("s"), SlotRules.touchUpdate(), false));
        // A poll's filter, with a touch to see it match: every free slot, none, the share that holds "s"'s
        // bucket, one that does not; late by 2 s.
        Instant lateBefore = Instant.now().minusSeconds(2);
        int bucket = SlotRules.bucket("s");
        for (FreeShare share : List.of(
                FreeShare.ALL,
                FreeShare.NONE,
                FreeShare.of(List.of(new FreeShare.Range(0, 1), new FreeShare.Range(bucket, bucket + 1))),
                FreeShare.of(List.of(new FreeShare.Range(bucket + 1, bucket + 4))))) {
            rules.add(new Rule(
                    "poll, " + share, SlotRules.pollFilter(OTHER, lateBefore, share), SlotRules.touchUpdate(), false));
            rules.add(new Rule(
                    "poll by the owner, " + share,
                    SlotRules.pollFilter(OWNER, lateBefore, share),
                    SlotRules.touchUpdate(),
                    false));
        }
        return rules;
    }

    @Test
    void theEvaluatorAndTheServerAgreeOnEverySlotRule() {
        int cases = 0;
        int matched = 0;
        for (Document doc : slots()) {
            // The claimer saw the document as it is (when its time is a date), or a millisecond off.
            Date time = doc.get("time") instanceof Date d ? d : new Date();
            for (Date seen : List.of(time, new Date(time.getTime() + 1), new Date(time.getTime() - 1))) {
                for (Rule rule : slotRules(seen)) {
                    matched += agree(rule, doc);
                    cases++;
                }
            }
        }
        assertTrue(
                matched > cases / 10 && matched < cases,
                matched + " of " + cases + " cases matched: both branches are covered");
    }

    private static final RobotToken TOKEN = new RobotToken("r1", "inc", "slot-0", 4, 2);

    private static Document robot() {
        return RobotCodec.newRobot("r1", "counter", "slot-0", 0, 1, new Document())
                .append("incarnation", "inc")
                .append("epoch", 4L)
                .append("fences", 2L)
                .append("seq", 3L)
                .append("statusSeq", 1L)
                .append("request", null);
    }

    private static List<Document> robots() {
        List<Document> docs = new ArrayList<>();
        docs.add(robot());
        List<UnaryOperator<Document>> variants = List.of(
                d -> d.append("node", "n1"),
                d -> d.append("node", "n2"),
                d -> without(d, "node"),
                d -> d.append("target", "slot-1"),
                d -> d.append("target", null),
                d -> d.append("desired", "stopped"),
                d -> d.append("desired", "removed"),
                d -> d.append("desired", "adding"),
                d -> without(d, "desired"),
                d -> d.append("desired", null),
                d -> d.append("state", "FAILED"),
                d -> without(d, "state"),
                d -> d.append("state", "STOPPED"),
                d -> d.append("target", "slot-0"),
                d -> d.append("epoch", 3L),
                d -> d.append("epoch", 5L),
                d -> d.append("epoch", 4),
                d -> without(d, "epoch"),
                d -> d.append("fences", 1L),
                d -> d.append("fences", 2),
                d -> without(d, "fences"),
                d -> without(d, "incarnation"),
                d -> d.append("incarnation", null),
                d -> d.append("slotId", "slot-1"),
                d -> d.append("seq", 10L),
                d -> d.append("seq", 5L),
                d -> without(d, "seq"),
                d -> d.append("seq", null),
                d -> without(d, "statusSeq"),
                d -> d.append("statusSeq", 2),
                d -> d.append("_id", "r2"));
        for (UnaryOperator<Document> variant : variants) {
            docs.add(variant.apply(robot()));
        }
        return docs;
    }

    private static List<Rule> robotRules() {
        RobotToken noIncarnation = new RobotToken("r1", null, "slot-0", 4, 2);
        List<Rule> rules = new ArrayList<>();
        rules.add(new Rule("fence", RobotRules.fenceFilter("slot-0", 5, null), RobotRules.fenceUpdate(5), true));
        rules.add(new Rule(
                "fence listed",
                RobotRules.fenceFilter("slot-0", 5, List.of("r1", "r3")),
                RobotRules.fenceUpdate(5),
                true));
        rules.add(new Rule(
                "fence at its epoch", RobotRules.fenceFilter("slot-0", 4, null), RobotRules.fenceUpdate(4), true));
        rules.add(new Rule(
                "take",
                RobotRules.takeFilter("slot-0", 4, List.of("r1", "r2"), "n1"),
                RobotRules.takeUpdate("n1"),
                true));
        rules.add(new Rule(
                "take, one id",
                RobotRules.takeFilter("slot-0", 4, List.of("r1"), "n1"),
                RobotRules.takeUpdate("n1"),
                true));
        for (RobotState asRead : List.of(RobotState.RUNNING, RobotState.FAILED, RobotState.STOPPED)) {
            RobotRules.HandOver handOver = RobotRules.handOver(TOKEN, asRead, "slot-1");
            rules.add(new Rule("hand over " + asRead, handOver.filter(), handOver.update(), false));
        }
        RobotRules.HandOver noIncarnationHandOver = RobotRules.handOver(noIncarnation, RobotState.RUNNING, "slot-1");
        rules.add(new Rule(
                "hand over, no incarnation", noIncarnationHandOver.filter(), noIncarnationHandOver.update(), false));
        // The operator's changes, made on the robot as it reads: idle, and the same seen as run by n1.
        for (RobotView view : List.of(RobotCodec.parse(robot()), RobotCodec.parse(robot().append("node", "n1")))) {
            RobotRules.HandOver idle = RobotRules.idleHandOver(view, "slot-1");
            rules.add(new Rule("operator's hand-over " + view.node(), idle.filter(), idle.update(), false));
            for (RobotRules.Change change : List.of(
                    RobotRules.added(view.id(), view.incarnation(), view.slotId()),
                    RobotRules.cancelMove(view),
                    RobotRules.requestMove(view, "slot-1"),
                    RobotRules.stopIdle(view),
                    RobotRules.requestStop(view),
                    RobotRules.clearFailure(view),
                    RobotRules.wantRunning(view),
                    RobotRules.requestRemoval(view))) {
                rules.add(new Rule("operator's " + change.update(), change.filter(), change.update(), false));
            }
        }
        for (RobotToken token : List.of(TOKEN, noIncarnation)) {
            for (long seq : List.of(2L, 3L, 4L)) {
                RobotWrite checkpoint = RobotWrite.checkpoint(token, seq, new Document("count", 7L));
                RobotWrite status = RobotWrite.status(
                        token,
                        seq,
                        new Document("state", "RUNNING").append("node", "n1").append("restarts", 0));
                rules.add(new Rule("checkpoint " + seq + " " + token, checkpoint.filter(), checkpoint.update(), false));
                rules.add(new Rule("status " + seq + " " + token, status.filter(), status.update(), false));
            }
        }
        return rules;
    }

    /** Reads and deletes: the filter alone. */
    private static List<Bson> robotFilters() {
        return List.of(
                RobotRules.loadFilter("slot-0", 4, null),
                RobotRules.loadFilter("slot-0", 4, List.of("r1")),
                RobotRules.watchFilter(List.of("slot-0", "slot-2")),
                RobotRules.storedFilter(List.of("r1", "r3")),
                RobotRules.deleteFilter(TOKEN),
                RobotRules.adding("r1", "inc"));
    }

    @Test
    void theEvaluatorAndTheServerAgreeOnEveryRobotRule() {
        int cases = 0;
        int matched = 0;
        for (Document doc : robots()) {
            for (Rule rule : robotRules()) {
                matched += agree(rule, doc);
                cases++;
            }
            for (Bson filter : robotFilters()) {
                BsonDocument stored = reset(doc);
                boolean expected = BsonEval.matches(filter, stored, System.currentTimeMillis());
                assertEquals(
                        expected ? 1 : 0,
                        collection.countDocuments(filter),
                        "find " + BsonEval.bson(filter).toJson() + " on " + stored.toJson());
                assertEquals(
                        expected,
                        collection.deleteOne(filter).getDeletedCount() == 1,
                        "delete " + BsonEval.bson(filter).toJson());
            }
        }
        assertTrue(
                matched > cases / 10 && matched < cases,
                matched + " of " + cases + " cases matched: both branches are covered");
    }

    private static BsonDocument reset(Document doc) {
        collection.deleteMany(new BsonDocument());
        BsonDocument stored = BsonEval.bson(doc);
        collection.insertOne(stored);
        return collection.find().first();
    }

    /** Applies {@code rule} to {@code doc} both ways; returns 1 if it matched. */
    private static int agree(Rule rule, Document doc) {
        BsonDocument stored = reset(doc);
        String what = rule.name() + " " + BsonEval.bson(rule.filter()).toJson() + " "
                + BsonEval.bson(rule.update()).toJson() + "\n on " + stored.toJson();
        long before = System.currentTimeMillis();
        long matched = rule.many()
                ? collection.updateMany(rule.filter(), rule.update()).getMatchedCount()
                : collection.updateOne(rule.filter(), rule.update()).getMatchedCount();
        long after = System.currentTimeMillis();
        boolean expected = BsonEval.matches(rule.filter(), stored, before);
        assertEquals(
                expected, BsonEval.matches(rule.filter(), stored, after), "a case too close to the clock: " + what);
        assertEquals(expected ? 1 : 0, matched, "matched: " + what);
        BsonDocument evaluated = expected ? BsonEval.apply(rule.update(), stored, before) : stored;
        BsonDocument actual = collection.find().first();
        BsonValue currentDate = BsonEval.bson(rule.update()).get("$currentDate");
        if (expected && currentDate != null) {
            for (String field : currentDate.asDocument().keySet()) {
                long written = actual.getDateTime(field).getValue();
                assertTrue(
                        written >= before - 1 && written <= after + 1, field + " written at " + written + ": " + what);
                actual.put(field, new BsonDateTime(before));
            }
        }
        assertEquals(typed(widened(evaluated)), typed(widened(actual)), "after: " + what);
        return expected ? 1 : 0;
    }

    /**
     * Whole numbers as int64: the embedded server stores an int32 {@code $set} as int64 at times (the port of a claim),
     * where MongoDB keeps int32. No rule depends on that width; every comparison is by value.
     */
    private static BsonDocument widened(BsonDocument doc) {
        BsonDocument wide = new BsonDocument();
        doc.forEach((field, value) -> wide.put(
                field, value.isInt32() ? new org.bson.BsonInt64(value.asInt32().getValue()) : value));
        return wide;
    }

    /** JSON that shows each value's type: int32, int64 and double differ. */
    private static String typed(BsonDocument doc) {
        return doc.toJson(org.bson.json.JsonWriterSettings.builder()
                .outputMode(org.bson.json.JsonMode.EXTENDED)
                .build());
    }

    /** An id registry entry of incarnation "inc", {@code ageMs} old by its {@code at}. */
    private static Document entry(String state, long ageMs) {
        return new Document("_id", "r1")
                .append("incarnation", "inc")
                .append("state", state)
                .append("at", new Date(System.currentTimeMillis() - ageMs));
    }

    @Test
    void theEvaluatorAndTheServerAgreeOnEveryIdRegistryRule() {
        List<Document> entries = new ArrayList<>();
        for (String state : List.of("reserving", "bound")) {
            for (long age : List.of(1_000L, 2 * RobotIdRules.RESERVATION.toMillis(), HOUR)) {
                entries.add(entry(state, age));
            }
            entries.add(entry(state, HOUR).append("incarnation", "other"));
            entries.add(without(entry(state, HOUR), "at"));
            entries.add(entry(state, HOUR).append("at", null));
        }
        List<Rule> rules = new ArrayList<>();
        for (RobotIds.State state : RobotIds.State.values()) {
            RobotIds.Entry read = new RobotIds.Entry("r1", "inc", state);
            rules.add(new Rule(
                    "take over " + state, RobotIdRules.takeOverFilter(read), RobotIdRules.reserveUpdate("new"), false));
            rules.add(new Rule("release " + state, RobotIdRules.releaseFilter(read), RobotIdRules.bindUpdate(), false));
        }
        rules.add(new Rule("bind", RobotIdRules.bindFilter("r1", "inc"), RobotIdRules.bindUpdate(), false));
        rules.add(new Rule(
                "reserve again", RobotIdRules.reserveFilter("r1", "inc"), RobotIdRules.reserveUpdate("inc"), false));
        int cases = 0;
        int matched = 0;
        for (Document entry : entries) {
            for (Rule rule : rules) {
                matched += agree(rule, entry);
                cases++;
            }
        }
        assertTrue(
                matched > cases / 10 && matched < cases,
                matched + " of " + cases + " cases matched: both branches are covered");
    }

    @Test
    void anOperatorTheEvaluatorDoesNotKnowFailsLoudly() {
        BsonDocument doc = BsonEval.bson(robot());
        long now = Instant.now().toEpochMilli();
        assertThrows(
                IllegalArgumentException.class,
                () -> BsonEval.matches(new Document("seq", new Document("$mod", List.of(2, 0))), doc, now));
        assertThrows(
                IllegalArgumentException.class,
                () -> BsonEval.matches(new Document("$nor", List.of(new Document("seq", 3L))), doc, now));
        assertThrows(
                IllegalArgumentException.class, () -> BsonEval.matches(new Document("context.count", 3L), doc, now));
        assertThrows(
                IllegalArgumentException.class,
                () -> BsonEval.matches(new Document("$expr", new Document("$subtract", List.of(1, 2))), doc, now));
        assertThrows(
                IllegalArgumentException.class,
                () -> BsonEval.apply(new Document("$push", new Document("a", 1)), doc, now));
        assertThrows(IllegalArgumentException.class, () -> BsonEval.apply(new Document("seq", 1L), doc, now));
        assertThrows(
                IllegalArgumentException.class,
                () -> BsonEval.apply(
                        new Document("$set", new Document("seq", 1L)).append("$inc", new Document("seq", 1L)),
                        doc,
                        now));
    }
}
