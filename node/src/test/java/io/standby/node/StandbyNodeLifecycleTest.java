package io.standby.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import io.standby.testing.TestPorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link StandbyNodeBuilder#build()} and {@link StandbyNode#start()} apart, as a container's lifecycle uses them:
 * building binds and connects nothing; a node starts once, and a node closed first never starts.
 */
class StandbyNodeLifecycleTest {

    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private String db;
    private StandbyDatabase admin;

    @BeforeEach
    void setUp() {
        db = database.name();
        admin = database.connection();
        new SlotTable(admin).init(1);
    }

    private StandbyNodeBuilder builder(int port) {
        return StandbyNode.builder()
                .mongo(TestMongo.uri())
                .database(db)
                .node("127.0.0.1", port)
                .timing(TIMING)
                .stopTimeout(Duration.ofSeconds(2));
    }

    @Test
    void aBuiltNodeHoldsNothingUntilStartedAndStartsOnce() throws Exception {
        int port = TestPorts.free();
        StandbyNode node = builder(port).build();
        assertEquals(Optional.of("not started"), node.notReady());
        assertEquals(List.of(), node.leases());
        // Nothing bound yet: the port is still free.
        new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();

        try (node) {
            node.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> node.leases().size() == 1 && node.notReady().isEmpty());
            assertEquals(NodeState.OWNER, node.state());
            IllegalStateException twice = assertThrows(IllegalStateException.class, node::start);
            assertEquals(
                    "node 127.0.0.1:" + port + " cannot be started more than once (it is started)", twice.getMessage());
        }
        assertEquals(Optional.of("stopped"), node.notReady());
        assertTrue(new SlotTable(admin).get("slot-0").orElseThrow().released(), "closing released the slot");
    }

    @Test
    void aNodeClosedBeforeItStartedNeverStarts() throws Exception {
        StandbyNode node = builder(TestPorts.free()).build();
        node.close();
        assertThrows(IllegalStateException.class, node::start);
        assertEquals(Optional.of("stopped"), node.notReady());
    }

    @Test
    void badSettingsFailTheBuildNamingTheValue() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> StandbyNode.builder().node("127.0.0.1", 0).build());
        assertTrue(e.getMessage().contains("0"), e.getMessage());
    }
}
