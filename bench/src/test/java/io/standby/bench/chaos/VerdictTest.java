package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.bench.chaos.Verdict.Violation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The verdict on synthetic records: a clean history passes, and each kind of violation, planted alone, is reported as
 * that kind and no other. Milliseconds to run.
 */
class VerdictTest {

    private final TreeMap<Long, Long> input = new TreeMap<>(Map.of(1L, 10L, 2L, 20L, 3L, 30L));
    private final Map<String, List<Facts.Output>> outputs = new HashMap<>();
    private final List<Checkpoint> records = new ArrayList<>();
    private final Map<String, Facts.End> ends = new HashMap<>();
    private final List<Facts.Renewal> renewals = new ArrayList<>();
    private final List<Facts.Cut> cuts = new ArrayList<>();
    /** The watch lease of the facts: 0, no watch links, unless a test sets it. */
    private long watchLease;

    private final List<Object> slotDocuments = new ArrayList<>(List.of("slot-0", "slot-1"));

    private final List<Facts.Freeze> freezes = new ArrayList<>();
    private final Map<String, List<Long>> resumes = new HashMap<>();
    private final Map<String, Long> takenByLink = new HashMap<>();
    private final Map<Long, Long> killedAt = new HashMap<>();

    /** r1 ran on n1 at slot-0:1 (writes at 100-110 ms, 200-210), then on n2 at slot-0:2 (from 300 ms). */
    VerdictTest() {
        outputs.put("r1", new ArrayList<>(List.of(out(1, 10, 10), out(2, 20, 30), out(3, 30, 60))));
        start("r1", "n1/11/1", "slot-0", 1, 1, 90);
        write("r1", "n1/11/1", "slot-0", 1, 1, 100, 110);
        write("r1", "n1/11/1", "slot-0", 1, 3, 200, 210);
        start("r1", "n2/21/1", "slot-0", 2, 3, 300);
        write("r1", "n2/21/1", "slot-0", 2, 3, 310, 320);
        write("r1", "n2/21/1", "slot-0", 2, 4, 400, 410);
        ends.put("r1", new Facts.End("RUNNING", 4));
    }

    @Test
    void aCleanHistoryPasses() {
        Verdict verdict = judge();
        assertTrue(verdict.passed(), String.join("\n", verdict.lines()));
    }

    @Test
    void aSecondOutputOfOneSeqIsADuplicate() {
        outputs.get("r1").add(out(2, 20, 30));
        assertOnly(Violation.DUPLICATED, 1);
    }

    @Test
    void anOutputWithAnotherBalanceIsChanged() {
        outputs.get("r1").set(2, out(3, 30, 61));
        assertOnly(Violation.CHANGED, 1);
    }

    @Test
    void anInputWithoutOutputIsMissing() {
        outputs.get("r1").remove(1);
        assertOnly(Violation.MISSING, 1);
    }

    @Test
    void anEarlierRunAcceptedAfterALaterRunWroteOverlaps() {
        // n1's run at epoch 1 is accepted again after n2's run at epoch 2 was: two runners at once, and a
        // write at a stale epoch.
        write("r1", "n1/11/1", "slot-0", 1, 4, 330, 340);
        Verdict verdict = judge();
        assertEquals(1, verdict.count(Violation.OVERLAP), String.join("\n", verdict.lines()));
        assertEquals(1, verdict.count(Violation.STALE_EPOCH));
        assertFalse(verdict.passed());
    }

    @Test
    void writesThatMightHaveBeenConcurrentAreNoOverlap() {
        // Begins before n2's first write ended: it may have landed before it, so nothing is certain.
        write("r1", "n1/11/1", "slot-0", 1, 3, 215, 315);
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aStaleEpochWriteOfAnotherRobotOfTheSlotIsReported() {
        outputs.put("r2", new ArrayList<>(List.of(out(1, 10, 10), out(2, 20, 30), out(3, 30, 60))));
        ends.put("r2", new Facts.End("RUNNING", 4));
        start("r2", "n1/11/2", "slot-0", 1, 1, 90);
        write("r2", "n1/11/2", "slot-0", 1, 4, 350, 360);
        Verdict verdict = judge("r1", "r2");
        assertEquals(1, verdict.count(Violation.STALE_EPOCH), String.join("\n", verdict.lines()));
        assertEquals(0, verdict.count(Violation.OVERLAP));
    }

    @Test
    void aRunStartedBehindAnAcknowledgedCheckpointLostIt() {
        start("r1", "n3/31/1", "slot-0", 3, 2, 500);
        assertOnly(Violation.LOST_ACK, 1);
    }

    @Test
    void aFinalContextBehindAnAcknowledgedCheckpointLostIt() {
        ends.put("r1", new Facts.End("RUNNING", 3));
        assertOnly(Violation.LOST_ACK, 1);
    }

    @Test
    void aRemovedAndAddedRobotMayStartOver() {
        renewals.add(new Facts.Renewal("r1", 420, 450));
        start("r1", "n2/21/2", "slot-0", 2, 1, 500);
        write("r1", "n2/21/2", "slot-0", 2, 1, 510, 520);
        ends.put("r1", new Facts.End("RUNNING", 1));
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aRobotNotRunningOrMissingAtTheEndIsReported() {
        ends.put("r1", new Facts.End("FAILED", 4));
        assertOnly(Violation.NOT_RUNNING, 1);
        ends.remove("r1");
        Verdict verdict = judge();
        assertEquals(1, verdict.count(Violation.NOT_RUNNING));
    }

    @Test
    void aDocumentOfTheSlotsCollectionThatIsNoSlotIsReported() {
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
        slotDocuments.add("owner:127.0.0.1:7701/4242-9f1c2ab0@worker-3");
        assertOnly(Violation.NOT_A_SLOT, 1);
    }

    /** The late mark of these facts: 2 heartbeats of 300 ms. */
    private static final long LATE = 600;

    @Test
    void aRunThatReturnedBeforeTheLateMarkOfACutPasses() {
        // n2's run was paused 540 ms into a cut of n2 from 420 ms to 2000 ms, and resumed after it.
        cuts.add(new Facts.Cut("n2", 21, 420, 2000, true));
        end("r1", "n2/21/1", "slot-0", 2, 4, 420 + LATE + Verdict.LATE_TOLERANCE_MS);
        start("r1", "n2/21/2", "slot-0", 2, 4, 2100);
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    /**
     * An owner that a watch link covered wrote no late mark, so a cut of its database link lets it run to its lease's
     * deadline (here 900 ms), not to the mark: past the mark is no violation, past the deadline is.
     */
    @Test
    void aCutOfAnOwnerWithoutALateMarkIsJudgedByItsLeasesDeadline() {
        cuts.add(new Facts.Cut("n2", 21, 420, 2000, true, 900));
        end("r1", "n2/21/1", "slot-0", 2, 4, 420 + 900 + Verdict.LATE_TOLERANCE_MS);
        start("r1", "n2/21/2", "slot-0", 2, 4, 2100);
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void anOwnerWithoutALateMarkThatRanPastItsLeasesDeadlineInACutIsReported() {
        cuts.add(new Facts.Cut("n2", 21, 420, 2000, true, 900));
        end("r1", "n2/21/1", "slot-0", 2, 4, 420 + 900 + Verdict.LATE_TOLERANCE_MS + 1);
        assertOnly(Violation.PAST_LATE_MARK, 1);
    }

    @Test
    void aRunThatReturnedPastTheLateMarkOfACutRanPastIt() {
        cuts.add(new Facts.Cut("n2", 21, 420, 2000, true));
        end("r1", "n2/21/1", "slot-0", 2, 4, 420 + LATE + Verdict.LATE_TOLERANCE_MS + 1);
        assertOnly(Violation.PAST_LATE_MARK, 1);
    }

    @Test
    void aCheckpointAttemptedPastTheLateMarkOfACutRanPastIt() {
        // Not accepted (the link is frozen), but attempted: the run was not paused.
        cuts.add(new Facts.Cut("n2", 21, 420, 2000, true));
        records.add(new Checkpoint(Checkpoint.Kind.WRITE, "r1", "n2", "n2/21/1", "slot-0", 2, 5, 1500, 2100, "fenced"));
        end("r1", "n2/21/1", "slot-0", 2, 4, 2100);
        assertOnly(Violation.PAST_LATE_MARK, 1);
    }

    @Test
    void aRunWithoutAnEndWhileItsProcessOutlivedTheCutRanThroughIt() {
        cuts.add(new Facts.Cut("n2", 21, 420, 2000, true));
        assertOnly(Violation.PAST_LATE_MARK, 1);
        // The process died during the cut: when the run ended is unknown, and nothing is claimed.
        cuts.set(0, new Facts.Cut("n2", 21, 420, 2000, false));
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aCutShorterThanTheLateMarkOrOfAnotherProcessIsNotJudged() {
        cuts.add(new Facts.Cut("n2", 21, 420, 420 + LATE + Verdict.LATE_TOLERANCE_MS, true));
        cuts.add(new Facts.Cut("n2", 22, 420, 2000, true));
        cuts.add(new Facts.Cut("n3", 1, 500, 2000, true));
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    /** The watch lease of the link-deadline tests, and so the bound's slack: 200 + 100 ms. */
    private static final long WATCH = 1000;
    /** n2 (pid 21), which runs r1 at slot-0:2, stopped from 420 to 2000 ms and woken by 2010, with two links open. */
    private static final Facts.Freeze FREEZE = new Facts.Freeze("n2", 21, 420, 2000, 2010, 2);

    private static final long BOUND = 2010 + WATCH / 5 + Verdict.LATE_TOLERANCE_MS;

    private void frozen() {
        watchLease = WATCH;
        freezes.add(FREEZE);
    }

    @Test
    void aRunThatReturnedWithinTheBoundAfterItsWakeAndRanAgainAfterAResumePasses() {
        frozen();
        end("r1", "n2/21/1", "slot-0", 2, 4, BOUND);
        resumes.put("slot-0:2", List.of(2400L));
        start("r1", "n2/21/2", "slot-0", 2, 4, 2450);
        write("r1", "n2/21/2", "slot-0", 2, 4, 2500, 2510);
        Verdict verdict = judge();
        assertTrue(verdict.passed(), String.join("\n", verdict.lines()));
        assertTrue(verdict.freezeSummary(WATCH).startsWith("1 judged"), verdict.freezeSummary(WATCH));
        assertTrue(
                verdict.freezeSummary(WATCH).contains("1 runs stopped, the latest returned 300 ms after SIGCONT"),
                verdict.freezeSummary(WATCH));
    }

    @Test
    void aRunThatReturnedPastTheBoundRanPastTheLinkDeadline() {
        frozen();
        end("r1", "n2/21/1", "slot-0", 2, 4, BOUND + 1);
        assertOnly(Violation.PAST_LINK_DEADLINE, 1);
    }

    @Test
    void aCheckpointAttemptedPastTheBoundRanPastTheLinkDeadline() {
        // Fenced (the slot was taken by the link), but attempted: the run was not stopped when its owner woke.
        frozen();
        takenByLink.put("slot-0:2", 1700L);
        records.add(new Checkpoint(
                Checkpoint.Kind.WRITE, "r1", "n2", "n2/21/1", "slot-0", 2, 5, BOUND + 50, BOUND + 60, "fenced"));
        end("r1", "n2/21/1", "slot-0", 2, 4, BOUND + 70);
        Verdict verdict = judge();
        assertOnly(Violation.PAST_LINK_DEADLINE, 1);
        assertTrue(
                String.join("\n", verdict.lines()).contains("taken over by a link"),
                String.join("\n", verdict.lines()));
    }

    @Test
    void aRunWithoutAnEndIsJudgedOnlyWhenItsProcessIsKnownToHaveLivedPastTheBound() {
        frozen();
        killedAt.put(21L, 5000L);
        assertOnly(Violation.PAST_LINK_DEADLINE, 1);
        // Killed before the bound, or never killed by the suite (it may have died on its own): nothing is certain.
        killedAt.put(21L, BOUND);
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
        killedAt.clear();
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aNewRunOfTheFrozenLeaseWithoutAResumeAfterTheStopRanPastTheLinkDeadline() {
        frozen();
        end("r1", "n2/21/1", "slot-0", 2, 4, 2100);
        start("r1", "n2/21/2", "slot-0", 2, 4, 2500);
        write("r1", "n2/21/2", "slot-0", 2, 4, 2600, 2610);
        end("r1", "n2/21/2", "slot-0", 2, 4, 2700);
        assertOnly(Violation.PAST_LINK_DEADLINE, 1);
        // A resume before the stop does not vouch for runs after it.
        resumes.put("slot-0:2", List.of(300L));
        assertOnly(Violation.PAST_LINK_DEADLINE, 1);
        // A resume after it (a renewal with a higher beat acknowledged): the new run is the lease's.
        resumes.put("slot-0:2", List.of(300L, 2400L));
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aRunStartedWithinTheBoundAndEndedByItNeedsNoResume() {
        // The runtime decided to start it before the stop: it ran for a moment after the wake, within the slack.
        frozen();
        end("r1", "n2/21/1", "slot-0", 2, 4, 2100);
        start("r1", "n2/21/2", "slot-0", 2, 4, 2020);
        end("r1", "n2/21/2", "slot-0", 2, 4, BOUND);
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aRunOfALeaseWonAfterTheWakeIsNotJudged() {
        frozen();
        end("r1", "n2/21/1", "slot-0", 2, 4, 2100);
        start("r1", "n2/21/2", "slot-1", 5, 4, 2500);
        write("r1", "n2/21/2", "slot-1", 5, 4, 2600, 2610);
        assertTrue(judge().passed(), String.join("\n", judge().lines()));
    }

    @Test
    void aShortStopAStopOfAnUnwatchedNodeOrOfAnotherProcessIsNotJudged() {
        watchLease = WATCH;
        // No longer than 0.9 watch leases + 100 ms: its deadline may not have passed.
        freezes.add(new Facts.Freeze("n2", 21, 420, 420 + WATCH * 9 / 10 + Verdict.LATE_TOLERANCE_MS, 1430, 2));
        // No link open (or unknown): it has no link deadline, and its robots may run on.
        freezes.add(new Facts.Freeze("n2", 21, 420, 2000, 2010, 0));
        freezes.add(new Facts.Freeze("n2", 21, 420, 2000, 2010, -1));
        freezes.add(new Facts.Freeze("n2", 22, 420, 2000, 2010, 2));
        write("r1", "n2/21/1", "slot-0", 2, 4, 2500, 2510);
        Verdict verdict = judge();
        assertTrue(verdict.passed(), String.join("\n", verdict.lines()));
        String summary = verdict.freezeSummary(WATCH);
        assertTrue(
                summary.startsWith("1 judged")
                        && summary.contains("1 shorter, 2 of a node without links; 0 runs stopped"),
                summary);
    }

    @Test
    void withoutWatchLinksTheRowIsNotJudged() {
        freezes.add(FREEZE);
        end("r1", "n2/21/1", "slot-0", 2, 4, 9000);
        Verdict verdict = judge();
        assertTrue(verdict.passed(), String.join("\n", verdict.lines()));
        assertFalse(verdict.judged(Violation.PAST_LINK_DEADLINE));
        assertTrue(
                verdict.lines().stream()
                        .anyMatch(l -> l.contains("past-link-deadline") && l.contains("not judged, watch links off")),
                String.join("\n", verdict.lines()));
    }

    private void assertOnly(Violation kind, long count) {
        Verdict verdict = judge();
        String report = String.join("\n", verdict.lines());
        for (Violation v : Violation.values()) {
            assertEquals(v == kind ? count : 0, verdict.count(v), v + "\n" + report);
        }
        assertFalse(verdict.passed());
    }

    private Verdict judge(String... robots) {
        List<String> names = robots.length == 0 ? List.of("r1") : List.of(robots);
        Facts.Links links = watchLease == 0
                ? Facts.Links.OFF
                : new Facts.Links(watchLease, freezes, resumes, takenByLink, killedAt);
        return Verdict.judge(
                new Facts(input, outputs, records, ends, names, renewals, cuts, LATE, links, slotDocuments));
    }

    private static Facts.Output out(long seq, long amount, long balance) {
        return new Facts.Output(seq, amount, balance);
    }

    private void start(String robot, String run, String slot, long epoch, long offset, long at) {
        records.add(new Checkpoint(
                Checkpoint.Kind.START, robot, run.split("/")[0], run, slot, epoch, offset, at, at, "start"));
    }

    private void end(String robot, String run, String slot, long epoch, long offset, long at) {
        records.add(new Checkpoint(
                Checkpoint.Kind.END, robot, run.split("/")[0], run, slot, epoch, offset, at, at, "returned"));
    }

    private void write(String robot, String run, String slot, long epoch, long offset, long before, long after) {
        records.add(new Checkpoint(
                Checkpoint.Kind.WRITE, robot, run.split("/")[0], run, slot, epoch, offset, before, after, "ok"));
    }
}
