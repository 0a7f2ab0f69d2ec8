package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node as users and containers start it: through the repository's launcher {@code ./standby} on the jar {@code mvn
 * package} built (so failsafe runs this after the package phase). Its exit code on SIGTERM is what a supervisor sees:
 * {@code docker stop}, a Kubernetes pod's termination, systemd. 0 means the slots were handed over; 1 means they were
 * not, whatever the signal.
 */
class NodeLauncherIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    private Optional<SlotView> slot(StandbyDatabase db) {
        return new SlotTable(db).get("slot-0");
    }

    @Test
    void sigtermReleasesTheSlotAndTheNodeExitsZero() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        int port = StandbyProcess.freePorts(1).getFirst();
        // A lease far longer than the test: a released slot is the node's doing, not the lease's.
        ChildJvm node = nodes.launch(port, "--heartbeat", "1s", "--lease", "60s", "--poll", "200ms");
        await().atMost(WAIT)
                .until(() -> slot(nodes.admin())
                                .map(SlotView::owner)
                                .map(NodeId::port)
                                .orElse(0)
                        == port);
        SlotView owned = slot(nodes.admin()).orElseThrow();

        int exit = node.terminate(WAIT);

        SlotView after = slot(nodes.admin()).orElseThrow();
        assertEquals(0, exit, "exit code after a hand-over:\n" + node.output());
        assertTrue(after.released(), "released by the node itself: " + after);
        assertNull(after.owner(), after.toString());
        assertEquals(owned.epoch(), after.epoch(), "a graceful release keeps the epoch");
        assertTrue(node.output().contains("Released slot-0 at epoch " + owned.epoch()), node.output());
    }

    @Test
    void aHandOverTheDatabaseNeverRecordedExitsOne() throws Exception {
        List<Integer> ports = StandbyProcess.freePorts(2);
        String uri = "mongodb://127.0.0.1:" + ports.get(0);
        // A database of its own, in its own process, so that this test can take it away.
        try (ChildJvm mongo = StandbyProcess.launch(
                nodes.dir(),
                "mongo",
                "mongo",
                "--in-memory",
                "--port",
                ports.get(0).toString())) {
            mongo.awaitOutput("Use it with", WAIT);
            try (StandbyDatabase db = StandbyDatabase.connect(uri, "standby", Duration.ofSeconds(10), null)) {
                new SlotTable(db).init(1);
            }
            try (ChildJvm node = StandbyProcess.launch(
                    nodes.dir(),
                    "node",
                    "node",
                    "--ip",
                    "127.0.0.1",
                    "--port",
                    ports.get(1).toString(),
                    "--heartbeat",
                    "1s",
                    "--lease",
                    "60s",
                    "--poll",
                    "200ms",
                    "--mongo",
                    uri,
                    "--db",
                    "standby")) {
                try (StandbyDatabase db = StandbyDatabase.connect(uri, "standby", Duration.ofSeconds(10), null)) {
                    await().atMost(WAIT)
                            .until(() -> slot(db).map(SlotView::owner).isPresent() || !node.isAlive());
                    assertEquals(ports.get(1), slot(db).orElseThrow().owner().port(), node.output());
                }
                mongo.kill9();

                int exit = node.terminate(WAIT);

                assertEquals(1, exit, "exit code when the release could not be written:\n" + node.output());
                assertTrue(node.output().contains("could not confirm that the slots were handed over"), node.output());
            }
        }
    }
}
