package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.testing.ChildJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fast failover with real node processes and a lease of 20 s: a killed owner's slot is taken over within seconds, a
 * frozen owner's only once its lease has run out (8 s there, still four times the late mark, to keep the suite short),
 * and an owner whose listener is closed fences itself. Facts come from the slot documents and the events, stamped by
 * the database's clock.
 */
class FastFailoverProcessTest {

    private static final Duration LEASE = Duration.ofSeconds(20);
    /** The frozen owner's test waits out a whole lease: shorter there, and still far above the late mark (1.8 s). */
    private static final Duration FROZEN_LEASE = Duration.ofSeconds(8);

    private static final Duration WAIT = Duration.ofSeconds(90);
    /** Micrometer's count of a node's aggregations, one series per client, collection and status. */
    private static final Pattern SLOT_READS = Pattern.compile(
            "^mongodb_driver_commands_seconds_count\\{([^}]*command=\"aggregate\"[^}]*)} (\\S+)$", Pattern.MULTILINE);

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    @BeforeEach
    void setUp() {
        new SlotTable(nodes.admin()).init(1);
    }

    private ChildJvm node(int port, List<String> jvmArgs, Duration lease) throws Exception {
        // Fast failover alone: with watch links (on by default) the link takes a dead or frozen owner over first.
        return nodes.node(
                port,
                jvmArgs,
                "--heartbeat",
                "1s",
                "--lease",
                lease.toSeconds() + "s",
                "--poll",
                "500ms",
                "--no-watch-links");
    }

    private SlotView slot() {
        return new SlotTable(nodes.admin()).get("slot-0").orElseThrow();
    }

    /** Starts two nodes, and returns the owner's port once the standby has watched it for a few polls. */
    private int ownerWithAStandby(List<String> jvmArgs) throws Exception {
        return ownerWithAStandby(jvmArgs, LEASE);
    }

    private int ownerWithAStandby(List<String> jvmArgs, Duration lease) throws Exception {
        List<Integer> ports = StandbyProcess.freePorts(2);
        node(ports.get(0), jvmArgs, lease);
        await().atMost(WAIT).until(() -> slot().owner() != null);
        int owner = slot().owner().port();
        int standby = ports.get(1);
        node(standby, jvmArgs, lease).awaitOutput("started", WAIT);
        // A few polls, in which the standby connects once to the owner's address and finds it accepting: the
        // poll's read of the slots is one aggregation, and one poll ends before the next one's read begins,
        // so four reads mean three polls done.
        await().atMost(WAIT).until(() -> slotReads(standby) >= 4);
        assertEquals(owner, slot().owner().port());
        return owner;
    }

    /**
     * How many aggregations of the slots the node on {@code port} has sent, from Micrometer's series on its /metrics.
     */
    private static long slotReads(int port) throws Exception {
        HttpResponse<String> metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode(), metrics.body());
        long reads = 0;
        Matcher series = SLOT_READS.matcher(metrics.body());
        while (series.find()) {
            if (series.group(1).contains("collection=\"slots\"")) {
                reads += (long) Double.parseDouble(series.group(2));
            }
        }
        return reads;
    }

    /** The take-over event of {@code epoch}, once the node that made it has written it. */
    private EventView takeover(long epoch) {
        await().atMost(WAIT)
                .until(() -> new EventTable(nodes.admin())
                        .list(null, "slot-0", null, null).stream()
                                .anyMatch(e -> e.type().equals("took-over") && e.epoch() == epoch));
        return new EventTable(nodes.admin())
                .list(null, "slot-0", null, null).stream()
                        .filter(e -> e.type().equals("took-over") && e.epoch() == epoch)
                        .findFirst()
                        .orElseThrow();
    }

    @Test
    void aKilledOwnersSlotIsTakenOverWithinSecondsNotAfterItsLease() throws Exception {
        int owner = ownerWithAStandby(List.of());
        SlotView before = slot();

        long killed = System.nanoTime();
        nodes.get(owner).kill9();
        await().atMost(WAIT).until(() -> slot().epoch() > before.epoch());
        Duration took = Duration.ofNanos(System.nanoTime() - killed);

        SlotView after = slot();
        assertEquals(before.epoch() + 1, after.epoch(), "one new epoch fences the dead owner");
        assertTrue(after.owner().port() != owner);
        EventView event = takeover(after.epoch());
        assertEquals("owner-gone", event.how(), event.toString());
        assertTrue(event.evidence().contains("refused twice"), event.evidence());
        Duration unowned = event.unowned().orElseThrow();
        assertTrue(
                unowned.compareTo(LEASE.dividedBy(2)) < 0,
                "no heartbeat for " + unowned + " by the database's clock: far less than the 20s lease");
        assertTrue(took.compareTo(LEASE.dividedBy(2)) < 0, "taken over " + took + " after the kill");
    }

    @Test
    void aFrozenOwnerWhoseSocketStillAcceptsKeepsItsSlotUntilItsLeaseRunsOut() throws Exception {
        int owner = ownerWithAStandby(List.of(), FROZEN_LEASE);
        SlotView before = slot();

        nodes.get(owner).signal("STOP");
        await().atMost(WAIT).until(() -> slot().epoch() > before.epoch());
        SlotView after = slot();

        EventView event = takeover(after.epoch());
        assertEquals("expired", event.how(), event.toString());
        Duration unowned = event.unowned().orElseThrow();
        assertTrue(
                unowned.compareTo(FROZEN_LEASE) >= 0,
                "taken " + unowned
                        + " after the frozen owner's last heartbeat, by the database's clock: not before its lease");
        nodes.get(owner).signal("CONT");
        nodes.get(owner).awaitOutput("Lost slot-0 at epoch " + before.epoch(), WAIT);
    }

    @Test
    void anOwnerWhoseListenerIsClosedFencesItselfAndStops() throws Exception {
        int owner = ownerWithAStandby(List.of("-Dstandby.testHooks=true"));
        SlotView before = slot();

        try {
            HttpResponse<String> closing = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + owner + "/test/close-listener"))
                                    .POST(HttpRequest.BodyPublishers.noBody())
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(202, closing.statusCode());
        } catch (IOException cutOff) {
            // On a loaded machine the answer can be cut off: half a heartbeat after the close the node finds its
            // address refusing, fences and exits, and its exit stops what is left of the endpoint. The log below
            // shows whether the close took effect.
        }

        ChildJvm closed = nodes.get(owner);
        assertEquals(1, closed.awaitExit(WAIT), "a node that lost its identity stops with 1:\n" + closed.output());
        String log = closed.output();
        assertTrue(log.contains("refuses connects: its listener is gone"), log);
        int fenced = log.indexOf("Stopped slot-0 (epoch " + before.epoch() + "): fenced");
        assertTrue(fenced >= 0, log);
        List<String> afterFence = new ArrayList<>(log.substring(fenced).lines().toList());
        assertTrue(
                afterFence.stream().noneMatch(line -> line.contains("Acquired")), "it claimed nothing after:\n" + log);
        await().atMost(WAIT)
                .until(() -> slot().epoch() > before.epoch()
                        && slot().owner() != null
                        && slot().owner().port() != owner);
    }
}
