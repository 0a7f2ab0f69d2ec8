package io.standby.robot.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.admin.RobotTable.MoveResult;
import io.standby.robot.admin.RobotTable.NewRobot;
import io.standby.robot.admin.RobotTable.RemoveResult;
import io.standby.robot.internal.FailingTouches;
import io.standby.robot.internal.MongoRobotIds;
import io.standby.robot.internal.MongoRobotStore;
import io.standby.robot.internal.RobotDocuments;
import io.standby.robot.internal.RobotRules;
import io.standby.robot.internal.RobotWrite;
import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.ApiAccess;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.SlotStore;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator's commands ({@code standby robot add/rm/move/stop/start}, {@code slots release}) as rules on the stored
 * documents, on an embedded server through the real robot and slot stores. Where a rule is about a node or a second
 * operator acting between the table's read and its write, {@link Interleaved} lands that change there, on the same
 * database.
 */
class RobotTableTest {

    private static final NodeId OWNER = new NodeId("127.0.0.1", 7701);
    private static final String RUNNER = "127.0.0.1:7701";
    private static final OptionalDouble NO_CAPACITY = OptionalDouble.empty();

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private StandbyDatabase db;
    private MongoRobotStore store;
    private MongoRobotIds ids;
    private MongoSlotStore slotStore;
    private SlotTable slots;
    private RobotTable table;
    private MongoCollection<Document> robots;

    @BeforeEach
    void setUp() {
        db = database.connection();
        store = new MongoRobotStore(db);
        ids = new MongoRobotIds(db);
        slotStore = new MongoSlotStore(db);
        slots = new SlotTable(db);
        table = new RobotTable(db);
        robots = db.database().getCollection("robots");
    }

    // ---- helpers: what an operator and a node do ----

    private static NewRobot robot(String id, String slotId) {
        return robot(id, slotId, 1);
    }

    private static NewRobot robot(String id, String slotId, double weight) {
        return new NewRobot(id, "counter", slotId, 0, weight, new Document());
    }

    private RobotView add(String id, String slotId) {
        return table.add(robot(id, slotId), NO_CAPACITY);
    }

    private RobotView addAuto(String id, double weight) {
        return table.add(robot(id, null, weight), NO_CAPACITY);
    }

    private RobotView view(String id) {
        return table.get(id).orElseThrow(() -> new AssertionError("no robot " + id));
    }

    private Document stored(String id) {
        return robots.find(Filters.eq("_id", id)).first();
    }

    private long changes(String slotId) {
        return slots.get(slotId).orElseThrow().changes();
    }

    /** The slot claimed by {@link #OWNER} with a long lease: live, at the epoch returned. */
    private long claim(String slotId) {
        SlotView seen = slotStore.read(slotId).orElseThrow();
        assertTrue(slotStore.claim(seen, new SlotStore.Ownership(OWNER, "i1", Duration.ofMinutes(5))));
        return slotStore.read(slotId).orElseThrow().epoch();
    }

    /**
     * As the owner of the robot's slot takes it at {@code epoch}: fenced, then marked as its own. Returns its run's
     * token.
     */
    private RobotToken take(String id, long epoch) {
        String slotId = view(id).slotId();
        store.fence(slotId, epoch, List.of(id));
        assertEquals(1, store.take(slotId, epoch, List.of(id), RUNNER));
        return RobotToken.of(view(id));
    }

    private void set(String id, Bson update) {
        robots.updateOne(Filters.eq("_id", id), update);
    }

    private static void assertRefused(String mention, Runnable command) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, command::run);
        assertTrue(e.getMessage().contains(mention), "'" + e.getMessage() + "' should name " + mention);
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    // ---- add ----

    @Test
    void addStoresAPendingRobotWantedRunningInItsSlotAndTellsTheSlotsOwner() {
        slots.init(2);
        long before = changes("slot-1");

        RobotView added = table.add(
                new NewRobot("crawler-1", "counter", "slot-1", 5, 2.5, new Document("intervalMs", 250)), NO_CAPACITY);

        assertEquals(view("crawler-1"), added, "add returns the robot as stored");
        assertEquals("counter", added.type());
        assertEquals("slot-1", added.slotId());
        assertEquals(5, added.priority());
        assertEquals(2.5, added.weight());
        assertEquals(new Document("intervalMs", 250), added.config());
        assertEquals(Desired.RUNNING, added.desired());
        assertEquals(RobotState.PENDING, added.state());
        assertNull(added.node(), "nobody runs it yet");
        assertEquals(0, added.epoch(), "the slot's owner fences it before it runs");
        assertNotNull(added.incarnation());
        assertNotNull(added.updated(), "stamped with the database's time");
        assertTrue(changes("slot-1") > before, "the slot's owner is told");
        assertEquals(
                "slot-1",
                stored("crawler-1").get("request", Document.class).getString("slot"),
                "the request a node's change stream watches names the slot");
    }

    @Test
    void idsAndTypesAreLettersDigitsAndDotUnderscoreColonDashOfAtMost128() {
        slots.init(1);
        for (String good : List.of("a", "A.b_c:d-9", "9" + "x".repeat(127))) {
            assertEquals(good, add(good, "slot-0").id());
        }
        for (String bad : List.of("", "b/d", ".hidden", "-x", "x y", "x".repeat(129))) {
            assertRefused("'" + bad + "'", () -> add(bad, "slot-0"));
        }
        assertRefused("'null'", () -> add(null, "slot-0"));
        for (String bad : List.of("", "mail/er", "x".repeat(129))) {
            assertRefused(
                    "'" + bad + "'",
                    () -> table.add(new NewRobot("t1", bad, "slot-0", 0, 1, new Document()), NO_CAPACITY));
        }
        assertRefused("'null'", () -> table.add(new NewRobot("t1", null, "slot-0", 0, 1, new Document()), NO_CAPACITY));
        assertThrows(
                NullPointerException.class,
                () -> table.add(new NewRobot("t1", "counter", "slot-0", 0, 1, null), NO_CAPACITY),
                "a robot has a config, if only an empty one");
        assertEquals(3, robots.countDocuments(), "no bad robot was stored");
    }

    @Test
    void aWeightMustBeAPositiveFiniteNumber() {
        slots.init(1);
        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertRefused("weight " + bad, () -> table.add(robot("w", "slot-0", bad), NO_CAPACITY));
        }
        assertEquals(0, robots.countDocuments());
        assertEquals(
                Double.MIN_VALUE,
                table.add(robot("w", "slot-0", Double.MIN_VALUE), NO_CAPACITY).weight());
    }

    @Test
    void anIdThatExistsIsRefusedAndWhileItsRemovalIsPendingTheOperatorIsToldToWait() {
        slots.init(2);
        add("r1", "slot-0");
        RobotView first = view("r1");

        assertRefused("'r1' already exists (in slot-0)", () -> add("r1", "slot-1"));

        take("r1", claim("slot-0"));
        assertEquals(RemoveResult.REQUESTED, table.remove("r1"));
        assertRefused("'r1' is still being removed from slot-0", () -> add("r1", "slot-1"));
        assertEquals(first.incarnation(), view("r1").incarnation(), "the old robot is left as it was");
        assertEquals("slot-0", view("r1").slotId());
    }

    /**
     * A second operator adds the same id between this add's reservation and its insert: the reservation decides, and
     * the second add is told to try again.
     */
    @Test
    void anAddThatComesSecondForAnIdReservedByAnotherIsRefusedAndLeavesTheFirstAddsRobot() {
        slots.init(2);
        Interleaved racing = new Interleaved(store);
        RobotTable racer = new RobotTable(racing, ids, slots);
        racing.beforeNextWrite(() -> assertRefused("'r1' is being added; try again", () -> add("r1", "slot-1")));

        racer.add(robot("r1", "slot-0"), NO_CAPACITY);

        assertEquals("slot-0", view("r1").slotId(), "the first add's robot");
        assertEquals(Desired.RUNNING, view("r1").desired());
    }

    /**
     * A writer that goes around the registry (a CLI from before it) inserts the id between this add's check and its
     * insert: the insert's duplicate key refuses it, and the id is given back.
     */
    @Test
    void anAddThatLosesItsInsertToAWriterAroundTheRegistryIsRefusedAndGivesTheIdBack() {
        slots.init(2);
        Interleaved racing = new Interleaved(store);
        RobotTable racer = new RobotTable(racing, ids, slots);
        racing.beforeNextWrite(
                () -> store.insert(RobotCodec.newRobot("r1", "counter", "slot-1", 0, 1, new Document())));

        assertRefused("'r1' already exists", () -> racer.add(robot("r1", "slot-0"), NO_CAPACITY));

        assertEquals("slot-1", view("r1").slotId(), "the other writer's robot");
        assertTrue(ids.get("r1").isEmpty(), "the reservation is given back");
    }

    @Test
    void anUnknownSlotIsRefusedNamingTheSlotsThereAre() {
        assertRefused("unknown slot 'slot-0': " + SlotTable.NO_SLOTS, () -> add("r1", "slot-0"));
        assertRefused(SlotTable.NO_SLOTS, () -> addAuto("r1", 1));
        slots.init(3);
        assertRefused("unknown slot 'slot-9' (slots: slot-0 .. slot-2)", () -> add("r1", "slot-9"));
        assertEquals(0, robots.countDocuments());
    }

    // ---- automatic placement ----

    @Test
    void automaticPlacementChoosesTheLeastLoadedSlotByWeight() {
        slots.init(3);
        table.add(robot("big", "slot-0", 3), NO_CAPACITY);
        table.add(robot("small", "slot-1", 1), NO_CAPACITY);
        table.add(robot("medium", "slot-2", 2.5), NO_CAPACITY);

        assertEquals("slot-1", addAuto("new", 1).slotId());
        assertEquals("slot-1", addAuto("new2", 1).slotId(), "slot-1 carries 2 now, still the least");
        assertEquals("slot-2", addAuto("new3", 1).slotId(), "2.5 on slot-2 against 3 on slot-1");
    }

    @Test
    void whileAnySlotIsLiveOnlyLiveSlotsTakeNewRobotsOtherwiseAnySlotDoes() {
        slots.init(2);
        assertEquals(
                2,
                List.of(addAuto("a", 1).slotId(), addAuto("b", 1).slotId()).stream()
                        .distinct()
                        .count(),
                "no slot is live: both are candidates");
        claim("slot-1");

        for (int i = 0; i < 3; i++) {
            assertEquals("slot-1", addAuto("live-" + i, 1).slotId(), "slot-1 is the only live slot, however loaded");
        }
    }

    @Test
    void onlyRobotsWantedRunningAndNotFailedCountTowardsALoadAndAMovingOneCountsWhereItGoes() {
        slots.init(2);
        table.add(robot("stopped", "slot-0", 5), NO_CAPACITY);
        table.stop("stopped");
        table.add(robot("running", "slot-1", 1), NO_CAPACITY);
        assertEquals("slot-0", addAuto("a", 0.5).slotId(), "a stopped robot weighs nothing");
        assertEquals("slot-0", addAuto("b", 1).slotId(), "slot-0 carries 0.5");

        set("b", Updates.set("state", RobotState.FAILED.name()));
        set("a", Updates.set("state", RobotState.FAILED.name()));
        assertEquals("slot-0", addAuto("c", 2).slotId(), "failed robots weigh nothing");

        // c is moving to slot-1 (its runner hands it over): it counts there.
        take("c", claim("slot-0"));
        claim("slot-1");
        assertEquals(MoveResult.REQUESTED, table.move("c", "slot-1"));
        assertEquals("slot-0", addAuto("d", 0.25).slotId(), "slot-0: 0 (c leaves it), slot-1: 3");
    }

    @Test
    void withACapacityARobotGoesOnlyWhereItFitsAndIsRefusedWhenNoSlotHasRoom() {
        slots.init(2);
        table.add(robot("big", "slot-0", 3), NO_CAPACITY);
        assertEquals(
                "slot-1", table.add(robot("a", null, 2), OptionalDouble.of(3)).slotId());
        assertEquals(
                "slot-1", table.add(robot("b", null, 1), OptionalDouble.of(3)).slotId(), "exactly full is allowed");

        assertRefused(
                "no slot has room for weight 0.5 under capacity 3.0",
                () -> table.add(robot("c", null, 0.5), OptionalDouble.of(3)));
        assertFalse(table.get("c").isPresent());
    }

    // ---- reads ----

    @Test
    void documentIsTheStoredDocumentWholeAndGetDecodesIt() {
        slots.init(1);
        add("r1", "slot-0");
        set("r1", Updates.set("context", new Document("count", 7)));

        assertEquals(stored("r1"), table.document("r1").orElseThrow());
        assertEquals(new Document("count", 7), view("r1").context());
        assertTrue(table.get("nobody").isEmpty());
        assertTrue(table.document("nobody").isEmpty());
    }

    @Test
    void listIsBySlotInNaturalOrderThenIdAndSkipsMalformedRobots() {
        slots.init(11);
        add("b", "slot-10");
        add("a", "slot-10");
        add("z", "slot-2");
        add("m", "slot-0");
        robots.insertOne(new Document("_id", "bad").append("slotId", "slot-2").append("weight", "heavy"));

        assertEquals(
                List.of("m", "z", "a", "b"),
                table.list(null).stream().map(RobotView::id).toList());
        assertEquals(
                List.of("a", "b"),
                table.list("slot-10").stream().map(RobotView::id).toList());
        assertEquals(
                List.of("z"),
                table.list("slot-2").stream().map(RobotView::id).toList(),
                "one slot's robots, the malformed skipped");
        assertEquals(List.of(), table.list("slot-5"));
        assertRefused("unknown slot 'slot-11'", () -> table.list("slot-11"));
    }

    @Test
    void summariesAreTheFirstRobotsByIdWithoutConfigOrContextListedBySlot() {
        slots.init(3);
        table.add(new NewRobot("c", "counter", "slot-0", 0, 1, new Document("k", 1)), NO_CAPACITY);
        table.add(new NewRobot("b", "counter", "slot-2", 0, 1, new Document("k", 1)), NO_CAPACITY);
        table.add(new NewRobot("a", "counter", "slot-1", 0, 1, new Document("k", 1)), NO_CAPACITY);
        set("a", Updates.set("context", new Document("count", 3)));
        robots.insertOne(
                new Document("_id", "aa-bad").append("slotId", "slot-0").append("epoch", "x"));

        List<RobotView> summaries = table.summaries(3);

        assertEquals(
                List.of("a", "b"),
                summaries.stream().map(RobotView::id).toList(),
                "the first three by id (the malformed one skipped), by slot");
        assertTrue(
                summaries.stream()
                        .allMatch(r -> r.config().isEmpty() && r.context().isEmpty()),
                "no config or context");
        assertEquals(
                List.of("c", "a", "b"),
                table.summaries(0).stream().map(RobotView::id).toList(),
                "0: all of them");
    }

    @Test
    void notRunningListsTheRobotsInAnyOtherStateWithoutConfigOrContext() {
        slots.init(2);
        for (String id : List.of("d", "c", "b", "a")) {
            table.add(new NewRobot(id, "counter", "slot-0", 0, 1, new Document("k", 1)), NO_CAPACITY);
        }
        set("b", Updates.set("state", RobotState.RUNNING.name()));
        set("c", Updates.combine(Updates.set("state", RobotState.FAILED.name()), Updates.set("slotId", "slot-1")));
        robots.insertOne(new Document("_id", "bad").append("slotId", "slot-0").append("epoch", "x"));

        assertEquals(
                List.of("a", "d", "c"),
                table.notRunning(0).stream().map(RobotView::id).toList());
        List<RobotView> first = table.notRunning(2);
        assertEquals(
                List.of("a"),
                first.stream().map(RobotView::id).toList(),
                "the first two by id, the malformed one skipped");
        assertTrue(first.getFirst().config().isEmpty());
    }

    @Test
    void countsBySlotAreByStateAMissingStateCountsAsPendingAndUnknownOnesAreLeftOut() {
        slots.init(11);
        add("a", "slot-10");
        add("b", "slot-10");
        add("c", "slot-2");
        set("b", Updates.set("state", RobotState.RUNNING.name()));
        robots.insertOne(new Document("_id", "no-state").append("slotId", "slot-10"));
        robots.insertOne(
                new Document("_id", "odd-state").append("slotId", "slot-10").append("state", "EXPLODED"));
        robots.insertOne(new Document("_id", "no-slot").append("state", "RUNNING"));

        Map<String, Map<RobotState, Long>> counts = table.countsBySlot();

        assertEquals(List.of("slot-2", "slot-10"), new ArrayList<>(counts.keySet()), "slots in natural order");
        assertEquals(Map.of(RobotState.PENDING, 1L), counts.get("slot-2"));
        assertEquals(
                Map.of(RobotState.PENDING, 2L, RobotState.RUNNING, 1L),
                counts.get("slot-10"),
                "a missing state is PENDING, as the robot reads; EXPLODED and a robot without slot are left out");
    }

    // ---- move ----

    @Test
    void aRobotNobodyRunsMovesAtOnceAndStartsOverAtEpochZeroInItsNewSlot() {
        slots.init(2);
        add("r1", "slot-0");
        store.fence("slot-0", 4, null);
        long before = changes("slot-1");

        assertEquals(MoveResult.MOVED, table.move("r1", "slot-1"));

        RobotView moved = view("r1");
        assertEquals("slot-1", moved.slotId());
        assertEquals(0, moved.epoch(), "slot-1's owner raises it to its own epoch");
        assertNull(moved.target());
        assertTrue(changes("slot-1") > before, "the new slot's owner is told");
        assertEquals(MoveResult.ALREADY_THERE, table.move("r1", "slot-1"));
        assertEquals(moved, view("r1"), "a move to where it is changes nothing");
    }

    @Test
    void aMoveOfARobotNobodyRunsKeepsAFailureOrAStopButNoClaimOfARunner() {
        slots.init(2);
        add("fenced", "slot-0");
        add("failed", "slot-0");
        add("stopped", "slot-0");
        take("fenced", claim("slot-0"));
        store.fence("slot-0", 9, List.of("fenced"));
        set("failed", Updates.set("state", RobotState.FAILED.name()));
        table.stop("stopped");

        for (String id : List.of("fenced", "failed", "stopped")) {
            assertEquals(MoveResult.MOVED, table.move(id, "slot-1"), id);
        }

        assertEquals(RobotState.PENDING, view("fenced").state(), "its runner was fenced off: nobody runs it");
        assertEquals(RobotState.FAILED, view("failed").state(), "only start clears a failure");
        assertEquals(RobotState.STOPPED, view("stopped").state());
    }

    @Test
    void aRunningRobotIsOnlyAskedToMoveItStaysUntilItsRunnerHandsItOver() {
        slots.init(2);
        add("r1", "slot-0");
        RobotToken token = take("r1", claim("slot-0"));
        long before = changes("slot-0");

        assertEquals(MoveResult.REQUESTED, table.move("r1", "slot-1"));

        RobotView asked = view("r1");
        assertEquals("slot-0", asked.slotId());
        assertEquals("slot-1", asked.target());
        assertEquals(token, RobotToken.of(asked), "its run's token still holds: it checkpoints and hands over");
        assertTrue(changes("slot-0") > before, "the runner's slot's owner is told");
        assertEquals("slot-0", stored("r1").get("request", Document.class).getString("slot"));
    }

    @Test
    void movingARobotBackToTheSlotItIsLeavingCancelsTheMove() {
        slots.init(2);
        add("r1", "slot-0");
        take("r1", claim("slot-0"));
        table.move("r1", "slot-1");
        long before = changes("slot-0");

        assertEquals(MoveResult.ALREADY_THERE, table.move("r1", "slot-0"));

        assertNull(view("r1").target(), "no move is pending");
        assertFalse(view("r1").moving());
        assertTrue(changes("slot-0") > before, "its runner is told");
    }

    @Test
    void moveRefusesAnUnknownSlotAnUnknownRobotAndOneBeingRemoved() {
        slots.init(2);
        add("r1", "slot-0");
        assertRefused("unknown slot 'slot-7'", () -> table.move("r1", "slot-7"));
        assertRefused("unknown robot 'nobody'", () -> table.move("nobody", "slot-1"));
        take("r1", claim("slot-0"));
        table.remove("r1");
        assertRefused("'r1' is being removed", () -> table.move("r1", "slot-1"));
        assertEquals("slot-0", view("r1").slotId());
        assertNull(view("r1").target());
    }

    /** A node takes the robot between the table's read and its write: a direct move would race the run, so it asks. */
    @Test
    void aRobotTakenBetweenTheReadAndTheMoveIsAskedToMoveInsteadOfMovedUnderItsRunner() {
        slots.init(2);
        add("r1", "slot-0");
        long epoch = claim("slot-0");
        Interleaved racing = new Interleaved(store);
        racing.beforeNextWrite(() -> take("r1", epoch));

        assertEquals(MoveResult.REQUESTED, new RobotTable(racing, ids, slots).move("r1", "slot-1"));

        assertEquals("slot-0", view("r1").slotId(), "never moved under its runner");
        assertEquals("slot-1", view("r1").target());
        assertEquals(RUNNER, view("r1").node());
    }

    /** The runner hands the robot over between the read and the write: the move is then made directly. */
    @Test
    void aRobotReleasedBetweenTheReadAndTheRequestIsMovedDirectly() {
        slots.init(3);
        add("r1", "slot-0");
        take("r1", claim("slot-0"));
        Interleaved racing = new Interleaved(store);
        racing.beforeNextWrite(
                () -> set("r1", Updates.combine(Updates.set("node", null), Updates.set("state", "STOPPED"))));

        assertEquals(MoveResult.MOVED, new RobotTable(racing, ids, slots).move("r1", "slot-2"));

        assertEquals("slot-2", view("r1").slotId());
        assertNull(view("r1").target());
    }

    /** A robot removed and added again between the read and the write is a new robot: the old read moves nothing. */
    @Test
    void aMoveDecidedOnAnEarlierIncarnationDoesNotApplyToTheNewOne() {
        slots.init(3);
        add("r1", "slot-0");
        Interleaved racing = new Interleaved(store);
        racing.beforeNextWrite(() -> {
            table.remove("r1");
            add("r1", "slot-1");
            set("r1", Updates.set("epoch", 3L));
        });

        assertEquals(MoveResult.MOVED, new RobotTable(racing, ids, slots).move("r1", "slot-2"));

        assertEquals("slot-2", view("r1").slotId(), "the new incarnation, read again, is moved");
        assertEquals(0, view("r1").epoch());
    }

    @Test
    void aRobotThatKeepsChangingUnderAMoveOrARemovalMakesTheCommandGiveUpWithoutChangingIt() {
        slots.init(2);
        add("r1", "slot-0");
        Interleaved racing = new Interleaved(store);
        // A runner takes and releases it between every read and write.
        racing.beforeEveryWrite(() -> {
            Document doc = stored("r1");
            set("r1", Updates.set("node", doc.get("node") == null ? RUNNER : null));
        });
        RobotTable racer = new RobotTable(racing, ids, slots);

        IllegalStateException move = assertThrows(IllegalStateException.class, () -> racer.move("r1", "slot-1"));
        assertTrue(move.getMessage().contains("'r1' keeps changing"), move.getMessage());
        IllegalStateException remove = assertThrows(IllegalStateException.class, () -> racer.remove("r1"));
        assertTrue(remove.getMessage().contains("'r1' keeps changing"), remove.getMessage());

        assertEquals("slot-0", view("r1").slotId());
        assertNull(view("r1").target());
        assertEquals(Desired.RUNNING, view("r1").desired());
    }

    // ---- stop and start ----

    @Test
    void stoppingARobotNobodyRunsStopsItAtOnce() {
        slots.init(1);
        add("r1", "slot-0");
        set("r1", Updates.unset("request"));
        long before = changes("slot-0");

        table.stop("r1");

        assertEquals(Desired.STOPPED, view("r1").desired());
        assertEquals(RobotState.STOPPED, view("r1").state());
        assertTrue(changes("slot-0") > before);
        assertEquals(
                "slot-0",
                stored("r1").get("request", Document.class).getString("slot"),
                "a request a change stream reports to the slot's owner");
    }

    @Test
    void stoppingARunningRobotLeavesItsStateToItsRunnerWhichStopsIt() {
        slots.init(1);
        add("r1", "slot-0");
        RobotToken token = take("r1", claim("slot-0"));
        set("r1", Updates.set("state", RobotState.RUNNING.name()));
        long before = changes("slot-0");

        table.stop("r1");

        RobotView asked = view("r1");
        assertEquals(Desired.STOPPED, asked.desired());
        assertEquals(RobotState.RUNNING, asked.state(), "the runner records STOPPED once it has stopped");
        assertEquals(RUNNER, asked.node());
        assertEquals(token, RobotToken.of(asked), "its token holds: the run checkpoints on its way out");
        assertTrue(changes("slot-0") > before, "the owner is told");
    }

    @Test
    void startWantsTheRobotRunningAgainAndClearsAFailureSoItIsRetried() {
        slots.init(1);
        add("r1", "slot-0");
        table.stop("r1");
        set(
                "r1",
                Updates.combine(
                        Updates.set("state", RobotState.FAILED.name()),
                        Updates.set("restarts", 5),
                        Updates.set("lastError", "boom")));
        long before = changes("slot-0");

        table.start("r1");

        RobotView started = view("r1");
        assertEquals(Desired.RUNNING, started.desired());
        assertEquals(RobotState.PENDING, started.state());
        assertEquals(0, started.restarts());
        assertNull(started.lastError());
        assertTrue(changes("slot-0") > before);
    }

    @Test
    void startingARobotThatHasNotFailedKeepsItsStateAndHistory() {
        slots.init(1);
        add("r1", "slot-0");
        take("r1", claim("slot-0"));
        set(
                "r1",
                Updates.combine(
                        Updates.set("state", RobotState.RUNNING.name()),
                        Updates.set("restarts", 2),
                        Updates.set("lastError", "earlier")));
        table.stop("r1");

        table.start("r1");

        RobotView started = view("r1");
        assertEquals(Desired.RUNNING, started.desired());
        assertEquals(RobotState.RUNNING, started.state());
        assertEquals(2, started.restarts());
        assertEquals("earlier", started.lastError());
    }

    @Test
    void stopAndStartRefuseAnUnknownRobotAndOneBeingRemoved() {
        slots.init(1);
        assertRefused("unknown robot 'nobody'", () -> table.stop("nobody"));
        assertRefused("unknown robot 'nobody'", () -> table.start("nobody"));
        add("r1", "slot-0");
        take("r1", claim("slot-0"));
        table.remove("r1");
        assertRefused("'r1' is being removed", () -> table.stop("r1"));
        assertRefused("'r1' is being removed", () -> table.start("r1"));
        assertEquals(Desired.REMOVED, view("r1").desired());
    }

    /** A removal requested between a stop's (or start's) read and its write is never undone by it. */
    @Test
    void aStopOrStartNeverTurnsARemovalRequestedMeanwhileBack() {
        slots.init(1);
        add("r1", "slot-0");
        take("r1", claim("slot-0"));
        Interleaved racing = new Interleaved(store);
        RobotTable racer = new RobotTable(racing, ids, slots);

        racing.beforeNextWrite(() -> table.remove("r1"));
        racer.stop("r1");
        assertEquals(Desired.REMOVED, view("r1").desired());

        set("r1", Updates.set("desired", Desired.RUNNING.value()));
        racing.beforeNextWrite(() -> table.remove("r1"));
        racer.start("r1");
        assertEquals(Desired.REMOVED, view("r1").desired());
    }

    /** A node takes the robot between a stop's read and its write: the stop leaves its state to that runner. */
    @Test
    void aRobotTakenBetweenTheReadAndTheStopIsStoppedByItsRunner() {
        slots.init(1);
        add("r1", "slot-0");
        long epoch = claim("slot-0");
        Interleaved racing = new Interleaved(store);
        racing.beforeNextWrite(() -> take("r1", epoch));

        new RobotTable(racing, ids, slots).stop("r1");

        assertEquals(Desired.STOPPED, view("r1").desired());
        assertEquals(RobotState.STARTING, view("r1").state(), "not marked STOPPED under its runner");
    }

    // ---- remove ----

    @Test
    void removingARobotNobodyRunsDeletesItAndTheIdCanBeAddedAgainAsANewRobot() {
        slots.init(1);
        String first = add("r1", "slot-0").incarnation();
        set("r1", Updates.set("context", new Document("count", 9)));

        assertEquals(RemoveResult.REMOVED, table.remove("r1"));

        assertNull(stored("r1"), "gone with its context");
        RobotView again = add("r1", "slot-0");
        assertNotEquals(first, again.incarnation(), "a new incarnation");
        assertEquals(new Document(), again.context());
        assertRefused("unknown robot 'nobody'", () -> table.remove("nobody"));
    }

    @Test
    void removingARunningRobotAsksItsRunnerWhichDeletesItUnderItsToken() {
        slots.init(1);
        add("r1", "slot-0");
        RobotToken token = take("r1", claim("slot-0"));
        long before = changes("slot-0");

        assertEquals(RemoveResult.REQUESTED, table.remove("r1"));

        assertEquals(Desired.REMOVED, view("r1").desired());
        assertEquals(token, RobotToken.of(view("r1")), "its runner stops it and deletes it under its token");
        assertTrue(changes("slot-0") > before);
        Document asked = stored("r1");

        assertEquals(RemoveResult.REQUESTED, table.remove("r1"), "asking again");
        assertEquals(asked, stored("r1"), "changes nothing");
        assertTrue(store.delete(token), "the runner deletes it");
    }

    /** A node takes the robot between a removal's read and its delete: the document stays and its runner is asked. */
    @Test
    void aRobotTakenBetweenTheReadAndTheDeleteIsLeftToItsRunner() {
        slots.init(1);
        add("r1", "slot-0");
        long epoch = claim("slot-0");
        Interleaved racing = new Interleaved(store);
        racing.beforeNextWrite(() -> take("r1", epoch));

        assertEquals(RemoveResult.REQUESTED, new RobotTable(racing, ids, slots).remove("r1"));

        assertEquals(Desired.REMOVED, view("r1").desired(), "never deleted under its runner");
        assertEquals(RUNNER, view("r1").node());
    }

    /**
     * The robot is removed and added again between the read and the write: the new incarnation is removed, read anew.
     */
    @Test
    void aRemovalDecidedOnAnEarlierIncarnationIsDecidedAgainOnTheNewOne() {
        slots.init(1);
        add("r1", "slot-0");
        long epoch = claim("slot-0");
        take("r1", epoch);
        Interleaved racing = new Interleaved(store);
        racing.beforeNextWrite(() -> {
            set("r1", Updates.set("node", null));
            table.remove("r1");
            add("r1", "slot-0");
        });

        assertEquals(RemoveResult.REMOVED, new RobotTable(racing, ids, slots).remove("r1"));

        assertNull(stored("r1"));
    }

    // ---- forced release ----

    /**
     * The slot's epoch goes up by one and every robot of the slot is fenced at exactly that epoch, so from then on no
     * write under a token the former owner held is accepted, while robots of other slots are untouched.
     */
    @Test
    void aForcedReleaseFencesTheSlotsRobotsAtTheNewEpochSoNoEarlierTokenWritesAgain() {
        slots.init(2);
        add("r1", "slot-0");
        add("r2", "slot-0");
        add("pending", "slot-0");
        add("other", "slot-1");
        long epoch = claim("slot-0");
        RobotToken r1 = take("r1", epoch);
        RobotToken r2 = take("r2", epoch);
        long otherEpoch = claim("slot-1");
        RobotToken other = take("other", otherEpoch);
        assertEquals(1, store.write(List.of(RobotWrite.checkpoint(r1, 1, new Document("count", 1)))));

        Optional<SlotView> before = table.forceRelease("slot-0");

        assertEquals(epoch, before.orElseThrow().epoch(), "the slot as it was");
        assertEquals(OWNER, before.orElseThrow().owner());
        SlotView after = slots.get("slot-0").orElseThrow();
        assertNull(after.owner());
        assertEquals(epoch + 1, after.epoch());
        for (String id : List.of("r1", "r2", "pending")) {
            assertEquals(after.epoch(), view(id).epoch(), id + " is fenced at the slot's new epoch");
            assertNotNull(view(id).updated());
        }
        assertEquals(RUNNER, view("r1").node(), "its former runner keeps it until it notices");
        for (RobotToken stale : List.of(r1, r2)) {
            RobotWrite late = RobotWrite.checkpoint(stale, 2, new Document("count", 2));
            assertFalse(late.appliesTo(store.stored(List.of(stale.robotId())).get(stale.robotId())));
            assertEquals(0, store.write(List.of(late)), "a write under " + stale + " is rejected");
            assertEquals(
                    0,
                    store.write(List.of(RobotWrite.status(stale, 2, new Document("state", "STOPPED")))),
                    "so is its final status");
            assertFalse(store.handOver(RobotRules.handOver(stale, RobotState.RUNNING, "slot-1")));
        }
        assertEquals(1, view("r1").context().getInteger("count"), "the checkpoint from before stays");
        assertEquals(otherEpoch, view("other").epoch(), "another slot's robots are untouched");
        assertEquals(1, store.write(List.of(RobotWrite.checkpoint(other, 1, new Document("count", 5)))));
    }

    @Test
    void aForcedReleaseOfAFreeSlotChangesNothingAndAnUnknownSlotIsRefused() {
        slots.init(1);
        add("r1", "slot-0");
        RobotView before = view("r1");

        assertTrue(table.forceRelease("slot-0").isEmpty());

        assertEquals(before, view("r1"));
        assertEquals(0, slots.get("slot-0").orElseThrow().epoch());
        assertRefused("unknown slot 'slot-3'", () -> table.forceRelease("slot-3"));
    }

    // ---- telling the owner ----

    @Test
    void aChangeIsKeptWhenTellingTheOwnerFailsTheOwnerFindsItAtItsFullRead() {
        slots.init(1);
        add("r1", "slot-0");
        FailingTouches touches = new FailingTouches(slotStore, 1);
        RobotTable told = new RobotTable(store, ids, ApiAccess.slotTable(touches));
        long before = changes("slot-0");

        told.stop("r1");
        assertEquals(before + 1, changes("slot-0"), "told on the second try");

        touches.failures = Integer.MAX_VALUE;
        told.start("r1");
        assertEquals(Desired.RUNNING, view("r1").desired(), "the change is recorded");
        assertEquals(before + 1, changes("slot-0"));
        assertEquals(4, touches.calls, "one try and a second each time, then no more");
    }

    // ---- rebalance ----

    @Test
    void aRebalanceMovesTheFewestRobotsAndADryRunChangesNothing() {
        slots.init(2);
        table.add(robot("big", "slot-0", 3), NO_CAPACITY);
        for (int i = 1; i <= 3; i++) {
            add("r" + i, "slot-0");
        }
        List<RobotView> before = table.list(null);

        List<RobotTable.Move> plan = table.planRebalance(NO_CAPACITY);

        assertEquals(List.of(new RobotTable.Move("big", "slot-0", "slot-1", 3)), plan);
        assertEquals(before, table.list(null), "a dry run changes nothing");
        assertEquals(plan, table.rebalance(NO_CAPACITY));
        assertEquals("slot-1", view("big").slotId());
        assertEquals(List.of(), table.rebalance(NO_CAPACITY), "balanced");
    }

    @Test
    void aRebalanceCountsRunningRobotsAtTheirTargetSoItDoesNotPlanTheirMovesTwice() {
        slots.init(2);
        long epoch = claim("slot-0");
        claim("slot-1");
        for (int i = 1; i <= 4; i++) {
            add("r" + i, "slot-0");
            take("r" + i, epoch);
        }

        List<RobotTable.Move> plan = table.rebalance(NO_CAPACITY);

        assertEquals(2, plan.size());
        for (RobotTable.Move move : plan) {
            assertEquals("slot-1", view(move.robotId()).target(), "asked of its runner");
            assertEquals("slot-0", view(move.robotId()).slotId());
        }
        assertEquals(List.of(), table.planRebalance(NO_CAPACITY), "the pending moves already even it out");
    }

    /**
     * The real robot store, with another actor's change landing just before the table's next write (or every write): a
     * node taking or releasing a robot, or a second operator, between the table's read and its conditional write.
     */
    private static final class Interleaved implements RobotDocuments {
        private final RobotDocuments store;
        private Runnable once;
        private Runnable every;

        Interleaved(RobotDocuments store) {
            this.store = store;
        }

        void beforeNextWrite(Runnable change) {
            once = change;
        }

        void beforeEveryWrite(Runnable change) {
            every = change;
        }

        private void interleave() {
            Runnable change = once;
            once = null;
            if (change != null) {
                change.run();
            }
            if (every != null) {
                every.run();
            }
        }

        @Override
        public List<Document> find(Bson filter, List<String> exclude, int limit) {
            return store.find(filter, exclude, limit);
        }

        @Override
        public boolean insert(Document robot) {
            interleave();
            return store.insert(robot);
        }

        @Override
        public long update(RobotRules.Change change) {
            interleave();
            return store.update(change);
        }

        @Override
        public long revoke(String slotId, long epoch) {
            interleave();
            return store.revoke(slotId, epoch);
        }

        @Override
        public boolean deleteIdle(RobotView robot) {
            interleave();
            return store.deleteIdle(robot);
        }

        @Override
        public boolean deleteAdding(String id, String incarnation) {
            interleave();
            return store.deleteAdding(id, incarnation);
        }

        @Override
        public boolean handOver(RobotRules.HandOver handOver) {
            interleave();
            return store.handOver(handOver);
        }

        @Override
        public List<Document> countBySlotAndState() {
            return store.countBySlotAndState();
        }
    }
}
