package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.SlotState;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.testing.ChildJvm;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nodes as real processes, failed the way machines fail: kill -9, SIGTERM, SIGSTOP. Facts come from the slot documents
 * (server timestamps, epochs) and the processes' own output and HTTP endpoints.
 */
class NodeProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Kept when a test fails: the nodes' own logs are the first thing to read. */
    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    private ChildJvm node(int port, String heartbeat, String lease, String poll) throws Exception {
        return node(port, heartbeat, lease, poll, 1);
    }

    private ChildJvm node(int port, String heartbeat, String lease, String poll, int maxSlots, String... more)
            throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(
                "--heartbeat", heartbeat, "--lease", lease, "--poll", poll, "--max-slots", Integer.toString(maxSlots)));
        args.addAll(List.of(more));
        return nodes.node(port, args.toArray(String[]::new));
    }

    private List<SlotView> slots() {
        return new SlotTable(nodes.admin()).list();
    }

    private SlotView slot(String id) {
        return new SlotTable(nodes.admin()).get(id).orElseThrow();
    }

    private List<SlotView> owned() {
        return slots().stream().filter(s -> s.state() == SlotState.OWNED).toList();
    }

    @Test
    void fiveNodesShareThreeSlotsAndAStandbyTakesOverFromAKilledOwner() throws Exception {
        new SlotTable(nodes.admin()).init(3);
        List<Integer> ports = StandbyProcess.freePorts(5);
        for (int port : ports) {
            // The lease's path: without fast failover, a killed owner's slot waits for its lease
            // (FastFailoverProcessTest has the other).
            node(port, "300ms", "2s", "300ms", 1, "--no-fast-failover");
        }
        await().atMost(WAIT).until(() -> owned().size() == 3);
        assertEquals(
                3,
                owned().stream()
                        .map(SlotView::owner)
                        .collect(Collectors.toSet())
                        .size());

        SlotView victim = slot("slot-0");
        int victimPort = victim.owner().port();
        long killedAt = System.nanoTime();
        nodes.get(victimPort).kill9();

        // Follow the document until a new epoch shows up: the last version of the old epoch holds the
        // dead owner's final heartbeat, both stamped by the server's clock.
        AtomicReference<SlotView> lastOfOldEpoch = new AtomicReference<>(victim);
        SlotView next = await("a takeover")
                .pollInterval(Duration.ofMillis(50))
                .atMost(WAIT)
                .until(
                        () -> {
                            SlotView now = slot("slot-0");
                            if (now.epoch() == victim.epoch()) {
                                lastOfOldEpoch.set(now);
                            }
                            return now;
                        },
                        now -> now.epoch() != victim.epoch());
        long tookOver = System.nanoTime() - killedAt;
        SlotView last = lastOfOldEpoch.get();

        assertEquals(victim.epoch() + 1, next.epoch());
        assertNotEquals(victimPort, next.owner().port());
        assertTrue(ports.contains(next.owner().port()));
        assertTrue(
                Duration.between(last.time(), next.time()).compareTo(Duration.ofSeconds(2)) >= 0,
                "taken " + Duration.between(last.time(), next.time())
                        + " after the last heartbeat: before the lease ran out");
        assertTrue(
                tookOver < Duration.ofSeconds(2).plusMillis(300).plusSeconds(5).toNanos(),
                "takeover within lease + poll (with room for a loaded machine), took " + Duration.ofNanos(tookOver));
        await().atMost(WAIT).until(() -> owned().size() == 3);
    }

    @Test
    void sigtermReleasesTheSlotAndAStandbyTakesItWithoutWaitingOutTheLease() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        List<Integer> ports = StandbyProcess.freePorts(2);
        int a = ports.get(0);
        int b = ports.get(1);
        node(a, "500ms", "10s", "200ms");
        await().atMost(WAIT).until(() -> owned().size() == 1);
        node(b, "500ms", "10s", "200ms").awaitOutput("started", WAIT);
        int owner = slot("slot-0").owner().port();
        int standby = owner == a ? b : a;

        long stoppedAt = System.nanoTime();
        int exit = nodes.get(owner).terminate(WAIT);
        await().atMost(WAIT).until(() -> {
            NodeId o = slot("slot-0").owner();
            return o != null && o.port() == standby;
        });
        long handover = System.nanoTime() - stoppedAt;

        assertEquals(0, exit, "a node that handed its slot over on SIGTERM exits 0");
        assertTrue(
                nodes.get(owner).output().contains("Released slot-0"),
                nodes.get(owner).output());
        assertEquals(2, slot("slot-0").epoch());
        assertTrue(
                handover < Duration.ofSeconds(5).toNanos(),
                "handed over in " + Duration.ofNanos(handover) + ", not after the 10s lease");
    }

    @Test
    void aDrainedNodeHandsItsSlotsToTheStandbyOneAtATimeWithoutWaitingOutTheLeaseThenExits() throws Exception {
        new SlotTable(nodes.admin()).init(2);
        List<Integer> ports = StandbyProcess.freePorts(2);
        int owner = ports.get(0);
        int standby = ports.get(1);
        node(owner, "200ms", "10s", "200ms", 2);
        await().atMost(WAIT).until(() -> owned().size() == 2);
        node(standby, "200ms", "10s", "200ms", 2).awaitOutput("started", WAIT);

        CliRun drain = CliRun.against(nodes.db(), "node", "drain", "127.0.0.1:" + owner);
        assertEquals(0, drain.exitCode(), drain.err());
        long askedAt = System.nanoTime();
        int exit = nodes.get(owner).awaitExit(WAIT);
        long exitedAfter = System.nanoTime() - askedAt;

        assertEquals(0, exit, "a drained node exits by itself, successfully");
        String log = nodes.get(owner).output();
        int first = log.indexOf("Draining: handing slot-0 over");
        int second = log.indexOf("Draining: handing slot-1 over");
        assertTrue(first >= 0 && second > first, "one slot at a time, in order:\n" + log);
        await().atMost(WAIT).until(() -> owned().size() == 2);
        for (SlotView slot : owned()) {
            assertEquals(standby, slot.owner().port(), slot.id());
            assertEquals(2, slot.epoch(), slot.id() + ": claimed once by each node");
        }
        assertTrue(
                exitedAfter < Duration.ofSeconds(10).toNanos(),
                "drained in " + Duration.ofNanos(exitedAfter)
                        + ": each slot was taken at the standby's next poll, not after the 10s lease");
        assertTrue(
                new io.standby.slot.NodeTable(nodes.admin())
                        .get(new NodeId("127.0.0.1", owner))
                        .isEmpty(),
                "the drained node left the registry");
    }

    @Test
    void aRestartWithTheSameIdentityTakesItsSlotBackWithoutWaitingForTheLease() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        List<Integer> ports = StandbyProcess.freePorts(2);
        int a = ports.get(0);
        int b = ports.get(1);
        // Without fast failover: with it, the standby usually finds the killed owner gone before it is back.
        node(a, "1s", "30s", "200ms", 1, "--no-fast-failover");
        await().atMost(WAIT).until(() -> owned().size() == 1);
        node(b, "1s", "30s", "200ms", 1, "--no-fast-failover").awaitOutput("started", WAIT);
        int owner = slot("slot-0").owner().port();
        int standby = owner == a ? b : a;
        SlotView before = slot("slot-0");

        nodes.get(owner).kill9();
        long restartedAt = System.nanoTime();
        node(owner, "1s", "30s", "200ms", 1, "--no-fast-failover");
        await().atMost(WAIT)
                .until(() -> !before.instance().equals(slot("slot-0").instance()));
        long back = System.nanoTime() - restartedAt;

        SlotView after = slot("slot-0");
        assertEquals(owner, after.owner().port());
        assertEquals(before.epoch() + 1, after.epoch(), "the old instance is fenced by a new epoch");
        assertTrue(
                back < Duration.ofSeconds(15).toNanos(),
                "back in " + Duration.ofNanos(back) + ", well inside the 30s lease");
        assertFalse(nodes.get(standby).output().contains("Acquired"), "the standby never took it");
    }

    @Test
    void aStoppedOwnerIsTakenOverAndStandsDownWhenItWakesUp() throws Exception {
        new SlotTable(nodes.admin()).init(1);
        List<Integer> ports = StandbyProcess.freePorts(2);
        int a = ports.get(0);
        int b = ports.get(1);
        node(a, "300ms", "2s", "300ms");
        await().atMost(WAIT).until(() -> owned().size() == 1);
        node(b, "300ms", "2s", "300ms").awaitOutput("started", WAIT);
        SlotView before = slot("slot-0");
        int owner = before.owner().port();
        int standby = owner == a ? b : a;

        nodes.get(owner).signal("STOP");
        await().atMost(WAIT).until(() -> slot("slot-0").epoch() == before.epoch() + 1);
        assertEquals(standby, slot("slot-0").owner().port());

        nodes.get(owner).signal("CONT");
        nodes.get(owner).awaitOutput("Lost slot-0 at epoch " + before.epoch(), WAIT);
        assertEquals(Set.of(), heldSlots(owner), "the woken owner holds nothing");
        await().during(Duration.ofSeconds(1))
                .atMost(WAIT)
                .alias("it does not take the slot back")
                .until(() -> slot("slot-0").owner().port() == standby
                        && slot("slot-0").epoch() == before.epoch() + 1);
    }

    /** The slots a node reports on its /health endpoint, over real HTTP. */
    private static Set<String> heldSlots(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        org.bson.Document health = org.bson.Document.parse(response.body());
        assertEquals("UP", health.getString("status"), response.body());
        return health.getList("slots", org.bson.Document.class).stream()
                .map(s -> s.getString("slot"))
                .collect(Collectors.toSet());
    }
}
