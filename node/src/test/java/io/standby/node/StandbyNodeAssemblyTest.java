package io.standby.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.runtime.RobotListener;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.EventLog;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a {@link StandbyNode} shares among its parts: the slot protocol and the robot runtime read one clock, the
 * builder's, and write one history through one event log.
 */
class StandbyNodeAssemblyTest {

    // A heartbeat of a second: at 200 ms a loaded machine (a .ci/run building two modules at once) let a renewal go
    // unanswered past the late mark, so the robot paused and started again just as the node closed, and no
    // robot-released was recorded.
    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofMillis(200));
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private StandbyDatabase admin;

    @BeforeEach
    void setUp() {
        admin = database.connection();
        new SlotTable(admin).init(1);
        new RobotTable(admin)
                .add(new RobotTable.NewRobot("t1", "ticker", "slot-0", 0, 1, new Document()), OptionalDouble.empty());
    }

    private StandbyNodeBuilder builder() {
        return StandbyNode.builder()
                .mongo(TestMongo.uri())
                .database(database.name())
                .node("127.0.0.1", TestPorts.free())
                .timing(TIMING)
                .stopTimeout(Duration.ofSeconds(2))
                .robots(new Ticker());
    }

    /**
     * A clock that stands still: every interval the node measures on it is zero. The renewals' round trips are the
     * protocol's measure and the checkpoints' latencies the runtime's; both are zero, though each took a database round
     * trip, so both parts read the builder's clock and no other. An extension hears both, as the metrics do.
     */
    @Test
    void theProtocolAndTheRuntimeReadTheBuildersClock() {
        MonotonicClock stopped = () -> 1_000_000_000L;
        List<Duration> renewals = new CopyOnWriteArrayList<>();
        List<Duration> checkpoints = new CopyOnWriteArrayList<>();
        NodeExtension latencies = config -> new NodeHooks() {
            @Override
            public SlotListener slotListener() {
                return new SlotListener() {
                    @Override
                    public void renewed(Lease lease, Duration latency) {
                        renewals.add(latency);
                    }
                };
            }

            @Override
            public RobotListener robotListener() {
                return new RobotListener() {
                    @Override
                    public void checkpointed(String robotId, Duration latency) {
                        checkpoints.add(latency);
                    }
                };
            }
        };
        try (StandbyNode node = builder().clock(stopped).extension(latencies).start()) {
            await().atMost(WAIT).until(() -> renewals.size() >= 3 && checkpoints.size() >= 3);
            assertEquals(
                    List.of(Duration.ZERO),
                    renewals.stream().distinct().toList(),
                    renewals.size() + " renewals measured on the builder's clock");
            assertEquals(
                    List.of(Duration.ZERO),
                    checkpoints.stream().distinct().toList(),
                    checkpoints.size() + " checkpoints measured on the builder's clock");
            assertTrue(node.leases().getFirst().isValid(), "a lease judged on a clock that stands still stays valid");
        }
    }

    /** One writer thread for the node's history, and in it what both parts recorded. */
    @Test
    void oneEventLogPerNodeRecordsTheProtocolAndTheRobots() {
        long writersBefore = eventWriters();
        try (StandbyNode node = builder().start()) {
            await().atMost(WAIT).until(() -> node.leases().size() == 1);
            assertEquals(
                    writersBefore + 1,
                    eventWriters(),
                    "one event writer for the node's slot protocol and robot runtime");
            await().atMost(WAIT).until(() -> events("claimed") == 1 && events("robot-started") == 1);
        }
        await().atMost(WAIT).until(() -> events("released") == 1);
        assertEquals(1, events("robot-released"), "the robot's end, recorded before the log closed");
        await().atMost(WAIT).until(() -> eventWriters() == writersBefore);
    }

    private long events(String type) {
        return admin.database().getCollection(EventLog.COLLECTION).countDocuments(Filters.eq("type", type));
    }

    private static long eventWriters() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("standby-events"))
                .count();
    }
}
