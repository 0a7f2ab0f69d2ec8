package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the churn report reads (node log lines, {@code /metrics}) and how it tells a false takeover. Milliseconds to
 * run.
 */
class ChurnTest {

    private static final long ORIGIN = LocalTime.of(10, 0)
            .atDate(LocalDate.of(2026, 11, 29))
            .atZone(ZoneId.systemDefault())
            .toInstant()
            .toEpochMilli();

    @Test
    void theNodeLogsPauseAndResumeLinesAreReadWithTheirTimes() {
        History.Line pause = History.parse(
                "node-2",
                "10:00:05.250 WARN  [standby-fence] A watch link of 127.0.0.1:35035 ended and no "
                        + "renewal outran its deadline: pausing the robots of slot-2; it keeps the slot and resumes "
                        + "them when a renewal is "
                        + "acknowledged",
                ORIGIN);
        assertEquals(new History.Line(History.Said.LINK_PAUSE, "node-2", "slot-2", -1, ORIGIN + 5250), pause);
        History.Line late = History.parse(
                "node-2",
                "10:00:06.000 WARN  [standby-fence] No renewal of slot-1 acknowledged for 3600ms "
                        + "(late mark 4s minus 400ms): pausing its robots; it keeps the slot until its lease ends",
                ORIGIN);
        assertEquals(History.Said.LATE_PAUSE, late.said());
        History.Line resumed = History.parse(
                "node-3",
                "10:00:07.001 INFO  [standby-heartbeat] Renewed slot-0 at epoch 12 after a "
                        + "pause: its robots start again",
                ORIGIN);
        assertEquals(new History.Line(History.Said.RESUMED, "node-3", "slot-0", 12, ORIGIN + 7001), resumed);
        assertNull(History.parse("node-3", "10:00:07.001 INFO  [standby-poll] Acquired slot-0 at epoch 12", ORIGIN));
        // Past midnight: a time half a day before the run's start is on the next day.
        History.Line next = History.parse(
                "node-3",
                "00:00:01.000 INFO  [standby-heartbeat] Renewed slot-0 at epoch 1 after a pause",
                ORIGIN + 14 * 3600_000L);
        assertEquals(ORIGIN + 14 * 3600_000L + 1000, next.time());

        History history = new History(
                List.of(
                        new History.Event("resumed", null, "slot-0", 12, "127.0.0.1:1", null, ORIGIN + 7100),
                        new History.Event(
                                "took-over", "link", "slot-1", 5, "127.0.0.1:2", "127.0.0.1:3", ORIGIN + 8000)),
                List.of(pause, resumed));
        assertEquals(Map.of("slot-0:12", List.of(ORIGIN + 7100, ORIGIN + 7001)), history.resumes());
        assertEquals(Map.of("slot-1:4", ORIGIN + 8000), history.takenByLink());
    }

    @Test
    void theWatchMetersAreSummedByNameAndSide() {
        NodeScrape scrape = NodeScrape.parse(0, """
                # HELP standby_watch_links Watch links open now
                # TYPE standby_watch_links gauge
                standby_watch_links{side="owner"} 3.0
                standby_watch_links{side="standby"} 1.0
                standby_watch_link_ends_total{node="127.0.0.1:1",side="owner"} 7.0
                standby_watch_pauses_total 2.0
                standby_slot_pauses_total 5.0
                standby_slots_paused 1.0
                """);
        assertEquals(3, scrape.get(NodeScrape.LINKS_OWNER));
        assertEquals(7, scrape.get(NodeScrape.ENDS_OWNER));
        assertEquals(2, scrape.get(NodeScrape.WATCH_PAUSES));
        assertEquals(5, scrape.get(NodeScrape.SLOT_PAUSES));
        assertEquals(0, scrape.get(NodeScrape.REFUSED));
    }

    @Test
    void aTakeoverByALinkOrOfAGoneOwnerIsFalseUnlessItsFormerOwnerWasUnderAFault() {
        Fault freeze = new Fault(1, Fault.Kind.FREEZE, "node-2", 1000, 2500, "", 22, false, "127.0.0.1:2", 2510, 3);
        Fault restart = Fault.offNode(2, Fault.Kind.DB_RESTART, "database", 20_000, 25_000, "");
        List<Fault> faults = List.of(freeze, restart);
        long grace = 6000;
        assertEquals(freeze, Churn.excuse(faults, took("127.0.0.1:2", 2600), grace));
        assertEquals(freeze, Churn.excuse(faults, took("127.0.0.1:2", 2510 + grace), grace));
        assertNull(Churn.excuse(faults, took("127.0.0.1:2", 2511 + grace), grace));
        assertNull(Churn.excuse(faults, took("127.0.0.1:2", 999), grace));
        assertNull(Churn.excuse(faults, took("127.0.0.1:9", 2000), grace));
        // A database restart cuts every node off.
        assertNotNull(Churn.excuse(faults, took("127.0.0.1:9", 21_000), grace));

        List<String> report = Churn.report(
                faults,
                new History(List.of(took("127.0.0.1:2", 2600), took("127.0.0.1:9", 2000)), List.of()),
                Map.of(),
                0,
                3_600_000,
                5000,
                1000);
        assertTrue(report.get(1).matches("  took-over how=link +2 +2\\.0/h +false: 1 \\(1\\.0/h\\)"), report.get(1));
        assertTrue(
                report.stream()
                        .anyMatch(l -> l.contains("false takeover: slot-0 at epoch 3 by 127.0.0.1:5 from 127.0.0.1:9")),
                String.join("\n", report));
    }

    private static History.Event took(String from, long at) {
        return new History.Event("took-over", "link", "slot-0", 3, "127.0.0.1:5", from, at);
    }
}
