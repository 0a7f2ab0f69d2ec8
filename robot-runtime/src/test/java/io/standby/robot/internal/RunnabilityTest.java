package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.standby.robot.internal.RobotDecision.Action;
import io.standby.robot.model.RobotCodec;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotView;
import io.standby.robot.model.Runnability;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * "Runnable" ({@link Runnability}) as a query and as Java agree, on a table of robot documents: every combination of
 * what the operator wants ({@code desired}), what the robot reports ({@code state}), a pending move ({@code target}),
 * its runner and its epoch, each field also missing. The embedded server evaluates the take's filter, and so does the
 * simulation's evaluator; {@link RobotDecision} judges the same documents as read.
 */
class RunnabilityTest {

    private static final String SLOT = "slot-0";
    private static final long EPOCH = 4;
    private static final String ME = "127.0.0.1:1";
    private static final Object MISSING = new Object();

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
                    (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null),
                    StandbyDatabase::database)
            .on(TestMongo::embeddedUri);

    private MongoCollection<Document> robots;
    private final List<Document> table = new ArrayList<>();

    @BeforeEach
    void setUp() {
        robots = database.connection().database().getCollection(RobotFields.COLLECTION);
        int n = 0;
        // The runner is this node or nobody: at the lease's epoch nobody else can have taken a robot (only
        // that epoch's owner takes at it), so another runner is the take's safety guard, not runnability.
        for (Object desired : List.of(MISSING, "running", "stopped", "removed")) {
            for (Object state : List.of(MISSING, "PENDING", "STARTING", "RUNNING", "STOPPED", "FAILED")) {
                for (Object target : Arrays.asList(MISSING, null, SLOT, "slot-1")) {
                    for (Object node : Arrays.asList(MISSING, null, ME)) {
                        for (long epoch : new long[] {EPOCH - 1, EPOCH, EPOCH + 1}) {
                            Document doc = new Document("_id", "r" + n++)
                                    .append(RobotFields.INCARNATION, "i")
                                    .append(RobotFields.SLOT, SLOT)
                                    .append(RobotFields.EPOCH, epoch)
                                    .append(RobotFields.FENCES, 1L);
                            put(doc, RobotFields.DESIRED, desired);
                            put(doc, RobotFields.STATE, state);
                            put(doc, RobotFields.TARGET, target);
                            put(doc, RobotFields.NODE, node);
                            table.add(doc);
                        }
                    }
                }
            }
        }
        robots.insertMany(table);
    }

    private static void put(Document doc, String field, Object value) {
        if (value != MISSING) {
            doc.append(field, value);
        }
    }

    private List<String> ids() {
        return table.stream().map(d -> d.getString("_id")).toList();
    }

    /** The robots this node, owning the slot at {@link #EPOCH}, decides to take or launch. */
    private Set<String> decidedToRun() {
        Set<String> run = new TreeSet<>();
        for (Document doc : table) {
            RobotView robot = RobotCodec.parse(doc);
            assertNotNull(robot, doc.toJson());
            Action action = RobotDecision.decide(robot, EPOCH, ME, null, RobotDecision.OnNode.NO_RUN);
            if (action == Action.TAKE || action == Action.LAUNCH) {
                run.add(robot.id());
            }
        }
        return run;
    }

    private Set<String> matchedByTheServer(Bson filter) {
        Set<String> matched = new TreeSet<>();
        robots.find(filter).forEach(doc -> matched.add(doc.getString("_id")));
        return matched;
    }

    private Set<String> matchedByTheSimulation(Bson filter) {
        Set<String> matched = new TreeSet<>();
        for (Document doc : table) {
            BsonDocument bson = BsonEval.bson(doc);
            if (BsonEval.matches(filter, bson, 0)) {
                matched.add(doc.getString("_id"));
            }
        }
        return matched;
    }

    @Test
    void runnableAsAQueryAndAsJavaAgreeOnEveryDocument() {
        Set<String> runnable = new TreeSet<>();
        Set<String> wanted = new TreeSet<>();
        for (Document doc : table) {
            RobotView robot = RobotCodec.parse(doc);
            if (Runnability.runnable(robot)) {
                runnable.add(robot.id());
            }
            if (Runnability.wanted(robot)) {
                wanted.add(robot.id());
            }
        }

        assertTrue(
                wanted.containsAll(runnable) && wanted.size() > runnable.size(),
                "a robot on its way elsewhere is wanted");
        assertEquals(runnable, matchedByTheServer(Runnability.filter(SLOT)));
        assertEquals(runnable, matchedByTheSimulation(Runnability.filter(SLOT)));
        assertEquals(Set.of(), matchedByTheServer(Runnability.filter("slot-1")), "another slot's");
    }

    @Test
    void theTakeMatchesExactlyTheRobotsTheDecisionStarts() {
        Bson take = RobotRules.takeFilter(SLOT, EPOCH, ids(), ME);
        Set<String> decided = decidedToRun();

        assertTrue(decided.size() > 10, "the table has runnable robots: " + decided.size());
        assertEquals(decided, matchedByTheServer(take));
        assertEquals(decided, matchedByTheSimulation(take));
    }
}
