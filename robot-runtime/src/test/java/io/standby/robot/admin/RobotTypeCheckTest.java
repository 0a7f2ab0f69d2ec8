package io.standby.robot.admin;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.NodeTable;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.NodeRegistry;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which robot types may be added, the one rule the command line, an embedding application and Spring use alike: a type
 * this process knows, whose factory accepts the configuration, or one a live node announces.
 */
class RobotTypeCheckTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private final RobotTypes local = RobotTypes.of(new Counter());
    private NodeTable nodes;

    @BeforeEach
    void setUp() {
        nodes = new NodeTable(database.connection());
    }

    @Test
    void aLocalTypesFactoryJudgesTheConfigurationWithItsOwnWords() {
        assertDoesNotThrow(() -> RobotTable.validateConfig("counter", new Document("intervalMs", 500), local));
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> RobotTable.validateConfig("counter", new Document("intervalMs", -1), local));
        assertEquals("invalid config for a counter robot: intervalMs -1 must be positive", refused.getMessage());
        // A type this process does not know is checked by the nodes that run it.
        assertDoesNotThrow(() -> RobotTable.validateConfig("mailer", new Document("intervalMs", -1), local));
    }

    @Test
    void aTypeNobodyKnowsIsRefusedNamingTheKnownOnes() {
        announce("127.0.0.1:7001", List.of("counter", "crawler"), false);
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> RobotTable.requireRunnableType("mailer", local, nodes));
        assertEquals(
                "unknown robot type 'mailer': neither built in nor known to a live node (known: counter, crawler)",
                refused.getMessage());
    }

    @Test
    void aTypeIsRunnableIfLocalOrAnnouncedByALiveNodeNotByAnOfflineOne() {
        assertDoesNotThrow(() -> RobotTable.requireRunnableType("counter", local, nodes));
        announce("127.0.0.1:7001", List.of("crawler"), false);
        assertDoesNotThrow(() -> RobotTable.requireRunnableType("crawler", local, nodes));
        announce("127.0.0.1:7002", List.of("mailer"), true);
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> RobotTable.requireRunnableType("mailer", local, nodes));
        assertEquals(
                "unknown robot type 'mailer': neither built in nor known to a live node (known: counter, crawler)",
                refused.getMessage());
    }

    /** A node's registry document, as a node writes it; an offline one was last written an hour ago. */
    private void announce(String node, List<String> types, boolean offline) {
        NodeId id = NodeId.parse(node);
        new MongoNodeRegistry(database.connection().database())
                .write(
                        new NodeRegistry.NodeRecord(
                                id,
                                "i-" + node,
                                "host",
                                NodeState.STANDBY,
                                List.of(),
                                1,
                                0,
                                0,
                                0,
                                0,
                                0,
                                "test",
                                Duration.ofSeconds(1),
                                types),
                        NodeRegistry.Write.FIRST);
        if (offline) {
            database.connection()
                    .database()
                    .getCollection(MongoNodeRegistry.COLLECTION)
                    .updateOne(
                            Filters.eq("_id", node),
                            Updates.set(
                                    "time",
                                    new Date(System.currentTimeMillis()
                                            - Duration.ofHours(1).toMillis())));
        }
    }

    /** Refuses an interval that is not positive, as a real factory checks its configuration. */
    private static final class Counter implements RobotFactory {
        @Override
        public String type() {
            return "counter";
        }

        @Override
        public void validate(Document config) {
            long interval = config.get("intervalMs", Number.class).longValue();
            if (interval <= 0) {
                throw new IllegalArgumentException("intervalMs " + interval + " must be positive");
            }
        }

        @Override
        public Robot create(Document config) {
            return context -> {};
        }
    }
}
