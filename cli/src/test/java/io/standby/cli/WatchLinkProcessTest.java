package io.standby.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.EventTable;
import io.standby.slot.EventView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.testing.ChildJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Watch links with real node processes at the default timing (a 20 s lease, a heartbeat of 2 s, so a late mark of 4 s,
 * and a watch lease of 1 s): a killed owner's slot is taken by the link, not by the late mark; an owner frozen for 5 s
 * too, and when it runs again it finds its lease paused and the slot lost, and never resumes it; a standby's death
 * costs the owner one renewal, not a pause. Facts come from the slot documents, the events (stamped by the database's
 * clock) and the nodes' logs.
 */
class WatchLinkProcessTest {

    private static final Duration FROZEN = Duration.ofSeconds(5);
    private static final Duration WAIT = Duration.ofSeconds(90);

    @RegisterExtension
    final NodeProcesses nodes = new NodeProcesses();

    @BeforeEach
    void setUp() {
        new SlotTable(nodes.admin()).init(1);
    }

    private ChildJvm node(int port) throws Exception {
        return nodes.node(port);
    }

    private SlotView slot() {
        return new SlotTable(nodes.admin()).get("slot-0").orElseThrow();
    }

    /** Two nodes; returns the owner's port once the standby watches it: it has had a ping. */
    private int[] ownerAndStandby() throws Exception {
        List<Integer> ports = StandbyProcess.freePorts(2);
        node(ports.get(0));
        await().atMost(WAIT).until(() -> slot().owner() != null);
        int owner = slot().owner().port();
        int standby = ports.get(1);
        node(standby).awaitOutput("Watching 127.0.0.1:" + owner, WAIT);
        assertEquals(owner, slot().owner().port());
        return new int[] {owner, standby};
    }

    /** The beat in the owner document of {@code slot}'s owner: raised by each of its renewals. */
    private long ownerBeat(SlotView slot) {
        org.bson.Document doc = nodes.admin()
                .database()
                .getCollection("owners")
                .find(new org.bson.Document("_id", "owner:" + slot.owner() + "/" + slot.instance()))
                .first();
        return doc == null ? -1 : ((Number) doc.get("beat")).longValue();
    }

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
    void aKilledOwnersSlotIsTakenByTheLinkBeforeTheLateMark() throws Exception {
        int owner = ownerAndStandby()[0];
        SlotView before = slot();
        nodes.get(owner).kill9();
        await().atMost(WAIT).until(() -> slot().epoch() > before.epoch());

        SlotView after = slot();
        assertEquals(before.epoch() + 1, after.epoch());
        EventView event = takeover(after.epoch());
        assertEquals("link", event.how(), event.toString());
        assertTrue(event.evidence().contains("watch link"), event.evidence());
    }

    @Test
    void aFrozenOwnerIsTakenOverByTheLinkAndOnWakingFindsItsLeasePausedAndLost() throws Exception {
        int owner = ownerAndStandby()[0];
        SlotView before = slot();
        long stoppedAt = System.nanoTime();
        nodes.get(owner).signal("STOP");
        await().atMost(WAIT).until(() -> slot().epoch() > before.epoch());
        EventView event = takeover(before.epoch() + 1);
        assertEquals("link", event.how(), event.toString());
        assertTrue(event.evidence().contains("watch link"), event.evidence());

        ChildJvm frozen = nodes.get(owner);
        // Frozen for 5 s in all, well past the link's deadline, as a long collection would; the slot stays taken.
        Duration left = FROZEN.minusNanos(System.nanoTime() - stoppedAt);
        if (left.isPositive()) {
            await("the slot stays with the standby while the owner is frozen")
                    .during(left)
                    .atMost(left.plusSeconds(5))
                    .until(() -> slot().epoch() == before.epoch() + 1);
        }
        frozen.signal("CONT");
        frozen.awaitOutput("Lost slot-0 at epoch " + before.epoch(), WAIT);
        String log = frozen.output();
        assertTrue(log.contains("pausing the robots of slot-0"), log);
        assertFalse(
                log.contains("Renewed slot-0 at epoch " + before.epoch() + " after a pause"),
                "it never resumed:\n" + log);
    }

    @Test
    void aKilledStandbyCostsTheOwnerOneRenewalNotAPause() throws Exception {
        int[] pair = ownerAndStandby();
        SlotView before = slot();
        nodes.get(pair[1]).kill9();
        ChildJvm owner = nodes.get(pair[0]);
        owner.awaitOutput("A watch link ended", WAIT);
        // Two renewals later: past the link's deadline (0.9 s after its last acknowledged ping).
        long beat = ownerBeat(before);
        await().atMost(WAIT).until(() -> ownerBeat(before) >= beat + 2);
        String log = owner.output();
        assertFalse(log.contains("pausing the robots"), log);
        assertEquals(before.epoch(), slot().epoch());
        assertEquals(pair[0], slot().owner().port());
    }
}
