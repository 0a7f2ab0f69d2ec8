package io.standby.bench.chaos;

import io.standby.bench.chaos.Verdict.Violation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verdict on synthetic records: a clean history passes, and each kind of violation, planted alone,
 * is reported as that kind and no other. Milliseconds to run.
 */
class VerdictTest {

    private final TreeMap<Long, Long> input = new TreeMap<>(Map.of(1L, 10L, 2L, 20L, 3L, 30L));
    private final Map<String, List<Facts.Output>> outputs = new HashMap<>();
    private final List<Checkpoint> records = new ArrayList<>();
    private final Map<String, Facts.End> ends = new HashMap<>();
    private final List<Facts.Renewal> renewals = new ArrayList<>();
    private final List<Facts.Cut> cuts = new ArrayList<>();

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
        return Verdict.judge(new Facts(input, outputs, records, ends, names, renewals, cuts, LATE));
    }

    private static Facts.Output out(long seq, long amount, long balance) {
        return new Facts.Output(seq, amount, balance);
    }

    private void start(String robot, String run, String slot, long epoch, long offset, long at) {
        records.add(new Checkpoint(Checkpoint.Kind.START, robot, run.split("/")[0], run, slot, epoch, offset, at, at, "start"));
    }

    private void end(String robot, String run, String slot, long epoch, long offset, long at) {
        records.add(new Checkpoint(Checkpoint.Kind.END, robot, run.split("/")[0], run, slot, epoch, offset, at, at, "returned"));
    }

    private void write(String robot, String run, String slot, long epoch, long offset, long before, long after) {
        records.add(new Checkpoint(Checkpoint.Kind.WRITE, robot, run.split("/")[0], run, slot, epoch, offset, before, after, "ok"));
    }
}
