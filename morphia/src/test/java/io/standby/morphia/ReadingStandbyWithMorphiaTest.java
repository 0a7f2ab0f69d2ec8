package io.standby.morphia;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.morphia.Datastore;
import dev.morphia.Morphia;
import dev.morphia.config.ManualMorphiaConfig;
import dev.morphia.query.filters.Filters;
import io.standby.node.StandbyNode;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotState;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestPorts;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The README's example ("Reading Standby's collections with Morphia"), against a real node: an application's own
 * {@code Datastore} answers which node owns a slot and which robots failed.
 */
class ReadingStandbyWithMorphiaTest {

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    @Test
    void anApplicationsDatastoreAnswersWhoOwnsASlotAndWhichRobotsFailed() {
        // What operators do once: four slots, a robot on slot-3 that always fails.
        new SlotTable(database.connection()).init(4);
        new RobotTable(database.connection())
                .add(
                        new RobotTable.NewRobot("importer", NodeWrites.BROKEN, "slot-3", 0, 1, new Document()),
                        OptionalDouble.empty());
        int port = TestPorts.free();
        try (StandbyNode node = NodeWrites.start(database.uri(), database.name(), port)) {

            // The application's own Datastore, on Standby's database.
            Datastore datastore = Morphia.createDatastore(
                    database.connection().client(),
                    ManualMorphiaConfig.configure()
                            .database(database.name())
                            .packages(List.of())
                            .applyIndexes(false));

            // Which node owns slot-3?
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                SlotEntity slot = datastore
                        .find(SlotEntity.class)
                        .filter(Filters.eq(SlotFields.ID, "slot-3"))
                        .first();
                assertEquals("127.0.0.1:" + port, slot.ip() + ":" + slot.port());
            });

            // Which robots are FAILED?
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<RobotEntity> failed = datastore
                        .find(RobotEntity.class)
                        .filter(Filters.eq(RobotFields.STATE, RobotState.FAILED))
                        .iterator()
                        .toList();
                assertEquals(
                        List.of("importer"),
                        failed.stream().map(RobotEntity::id).toList());
            });

            // Every slot.
            List<SlotEntity> slots = datastore.find(SlotEntity.class).iterator().toList();
            assertEquals(4, slots.size());
        }
    }
}
