package io.standby.bench.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges the invariants on recorded {@link Facts}. Each kind of violation is counted, with a few
 * examples. Time-based checks count a violation only when it is certain from the recorded intervals: an
 * accepted write happened somewhere in {@code [before, after]}, so "w1 before w2" is only claimed when
 * {@code w1.after < w2.before}. So they have no false positives, and may miss a violation that fell
 * within the width of an interval.
 */
public final class Verdict {

    /** The kinds of violation, each of which must count zero. */
    public enum Violation {
        DUPLICATED("outputs of one seq more than once"),
        CHANGED("outputs whose entry or balance differ from the input"),
        MISSING("input seqs without an output"),
        OVERLAP("runs of one robot accepted at the same time"),
        STALE_EPOCH("writes accepted at an epoch after a later epoch of the slot had written"),
        LOST_ACK("runs or final contexts behind an acknowledged checkpoint"),
        PAST_LATE_MARK("robot ran on a node cut off from the database past its late mark"),
        NOT_RUNNING("robots not RUNNING at the end");

        final String meaning;

        Violation(String meaning) {
            this.meaning = meaning;
        }
    }

    private static final int EXAMPLES = 5;

    private final Map<Violation, Long> counts = new LinkedHashMap<>();
    private final Map<Violation, List<String>> examples = new LinkedHashMap<>();

    private Verdict() {
        for (Violation v : Violation.values()) {
            counts.put(v, 0L);
            examples.put(v, new ArrayList<>());
        }
    }

    public static Verdict judge(Facts facts) {
        Verdict verdict = new Verdict();
        verdict.outputs(facts);
        Map<String, List<Run>> runs = Run.of(facts.records());
        verdict.overlaps(runs);
        verdict.staleEpochs(facts.records());
        verdict.lostAcks(facts, runs);
        verdict.pastLateMark(facts);
        verdict.notRunning(facts);
        return verdict;
    }

    public long count(Violation v) {
        return counts.get(v);
    }

    public boolean passed() {
        return counts.values().stream().allMatch(c -> c == 0);
    }

    /** One line per kind, then the examples of those that failed. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Violation v : Violation.values()) {
            lines.add(String.format("  %-14s %6d  (%s)", v.name().toLowerCase().replace('_', '-'), counts.get(v), v.meaning));
        }
        for (Violation v : Violation.values()) {
            for (String example : examples.get(v)) {
                lines.add("    " + v.name().toLowerCase() + ": " + example);
            }
        }
        return lines;
    }

    private void found(Violation v, String example) {
        counts.merge(v, 1L, Long::sum);
        if (examples.get(v).size() < EXAMPLES) {
            examples.get(v).add(example);
        }
    }

    private void outputs(Facts facts) {
        Map<Long, Long> balances = new HashMap<>();
        long running = 0;
        for (Map.Entry<Long, Long> in : facts.input().entrySet()) {
            running += in.getValue();
            balances.put(in.getKey(), running);
        }
        for (String robot : facts.robots()) {
            Map<Long, Integer> seen = new HashMap<>();
            for (Facts.Output out : facts.outputs().getOrDefault(robot, List.of())) {
                if (seen.merge(out.seq(), 1, Integer::sum) == 2) {
                    found(Violation.DUPLICATED, robot + " seq " + out.seq());
                }
                Long amount = facts.input().get(out.seq());
                if (amount == null || !amount.equals(out.amount()) || !balances.get(out.seq()).equals(out.balance())) {
                    found(Violation.CHANGED, robot + " seq " + out.seq() + ": amount " + out.amount() + " balance "
                            + out.balance() + ", input amount " + amount + " balance " + balances.get(out.seq()));
                }
            }
            for (Long seq : facts.input().keySet()) {
                if (!seen.containsKey(seq)) {
                    found(Violation.MISSING, robot + " seq " + seq);
                }
            }
        }
    }

    /**
     * Two runs of one robot overlap for certain when one of them had a write accepted, then the other
     * had one accepted, then the first had another accepted, each ending before the next began.
     */
    private void overlaps(Map<String, List<Run>> runs) {
        for (List<Run> ofRobot : runs.values()) {
            for (int i = 0; i < ofRobot.size(); i++) {
                for (int j = i + 1; j < ofRobot.size(); j++) {
                    String overlap = overlap(ofRobot.get(i), ofRobot.get(j));
                    if (overlap == null) {
                        overlap = overlap(ofRobot.get(j), ofRobot.get(i));
                    }
                    if (overlap != null) {
                        found(Violation.OVERLAP, overlap);
                    }
                }
            }
        }
    }

    /** How {@code b} wrote while {@code a} ran, for certain, or null. */
    private static String overlap(Run a, Run b) {
        if (a.accepted.isEmpty() || b.accepted.isEmpty()) {
            return null;
        }
        long aFirstEnd = a.accepted.stream().mapToLong(Checkpoint::after).min().orElseThrow();
        long aLastStart = a.accepted.stream().mapToLong(Checkpoint::before).max().orElseThrow();
        for (Checkpoint w : b.accepted) {
            if (aFirstEnd < w.before() && w.after() < aLastStart) {
                return w.robot() + ": run " + a.id + " (" + a.slot + ":" + a.epoch + ") wrote before and after run "
                        + b.id + " (" + b.slot + ":" + b.epoch + ") wrote offset " + w.offset() + " in ["
                        + w.before() + ", " + w.after() + "]";
            }
        }
        return null;
    }

    /**
     * Once a write at epoch E of a slot was accepted, every robot of the slot was fenced at E (the new
     * owner fences them all before it starts any), so no write at an epoch below E may be accepted after it.
     */
    private void staleEpochs(List<Checkpoint> records) {
        Map<String, List<Checkpoint>> bySlot = new HashMap<>();
        for (Checkpoint c : records) {
            if (c.accepted()) {
                bySlot.computeIfAbsent(c.slot(), s -> new ArrayList<>()).add(c);
            }
        }
        for (List<Checkpoint> writes : bySlot.values()) {
            writes.sort(Comparator.comparingLong(Checkpoint::after));
            // Walks the writes by start, keeping the highest epoch of those that had ended before it.
            List<Checkpoint> byBefore = new ArrayList<>(writes);
            byBefore.sort(Comparator.comparingLong(Checkpoint::before));
            int ended = 0;
            long highestEnded = Long.MIN_VALUE;
            Checkpoint witness = null;
            for (Checkpoint w : byBefore) {
                while (ended < writes.size() && writes.get(ended).after() < w.before()) {
                    if (writes.get(ended).epoch() > highestEnded) {
                        highestEnded = writes.get(ended).epoch();
                        witness = writes.get(ended);
                    }
                    ended++;
                }
                if (w.epoch() < highestEnded) {
                    found(Violation.STALE_EPOCH, w.robot() + " at " + w.slot() + ":" + w.epoch() + " (run " + w.run()
                            + ") accepted in [" + w.before() + ", " + w.after() + "] after " + witness.robot() + " at epoch "
                            + witness.epoch() + " (run " + witness.run() + ") in [" + witness.before() + ", " + witness.after() + "]");
                }
            }
        }
    }

    /**
     * A run starts from the robot's last accepted checkpoint, so its starting offset is at least every
     * offset acknowledged before it began; the final context likewise. A removal and new add starts the
     * robot over, so only facts of the same incarnation are compared, and facts inside a renewal are left out.
     */
    private void lostAcks(Facts facts, Map<String, List<Run>> runs) {
        for (String robot : facts.robots()) {
            List<Facts.Renewal> renewals = facts.renewals().stream().filter(r -> r.robot().equals(robot)).toList();
            List<Checkpoint> acks = runs.getOrDefault(robot, List.of()).stream().flatMap(r -> r.accepted.stream()).toList();
            for (Run run : runs.getOrDefault(robot, List.of())) {
                if (run.start == null) {
                    continue;
                }
                int incarnation = incarnation(renewals, run.start.before(), run.start.before());
                if (incarnation < 0) {
                    continue;
                }
                for (Checkpoint ack : acks) {
                    if (ack.after() < run.start.before() && ack.offset() > run.start.offset()
                            && incarnation(renewals, ack.before(), ack.after()) == incarnation) {
                        found(Violation.LOST_ACK, robot + ": run " + run.id + " started at " + run.start.before()
                                + " from offset " + run.start.offset() + ", but offset " + ack.offset() + " was acknowledged to run "
                                + ack.run() + " by " + ack.after());
                        break;
                    }
                }
            }
            Facts.End end = facts.ends().get(robot);
            if (end != null) {
                int last = renewals.size();
                long acked = acks.stream().filter(a -> incarnation(renewals, a.before(), a.after()) == last)
                        .mapToLong(Checkpoint::offset).max().orElse(Long.MIN_VALUE);
                if (acked > end.offset()) {
                    found(Violation.LOST_ACK, robot + ": final context offset " + end.offset() + ", but " + acked + " was acknowledged");
                }
            }
        }
    }

    /** How many renewals ended before [from, to]; -1 if one overlaps it. */
    private static int incarnation(List<Facts.Renewal> renewals, long from, long to) {
        int done = 0;
        for (Facts.Renewal r : renewals) {
            if (r.to() < from) {
                done++;
            } else if (r.from() <= to) {
                return -1;
            }
        }
        return done;
    }

    /**
     * Recording granularity allowed past the late mark, in ms: the facts are wall-clock milliseconds (one
     * clock, every process is on one host), a run's end is recorded just after {@code Robot.run} returned
     * (the ledger has closed its client by then), and the cut's start is read just after the link froze.
     */
    static final long LATE_TOLERANCE_MS = 100;

    /** The runs judged against a cut, and how late the latest of them ended (see {@link #cutSummary}). */
    private int cutsJudged;
    private int runsJudged;
    private long latestEndAfterFreeze = Long.MIN_VALUE;

    /**
     * No robot runs on a node cut off from the database past its late mark. For a cut of node N's whole
     * link (its slot protocol, its checkpoints and its robots' own collections, frozen through all of
     * {@code [from, to]}), let {@code mark = from + late + LATE_TOLERANCE_MS}, {@code late} being the mark
     * the nodes write (2 heartbeats). The owner pauses its slot's robots once no renewal was acknowledged
     * for {@code late - late/10} since the send of its last acknowledged one; that send came before
     * {@code from} (a renewal sent after the freeze is not answered before {@code to}), so the pause is due
     * before {@code from + late - late/10}, and the tenth of the mark covers the fence check (a quarter of it
     * at most), the interrupt and the run's return. A cut no longer than {@code mark - from} is not judged.
     * Every run of the process N ran then ({@code N/pid/n}) that began before {@code to} is a violation if
     * <ul>
     *   <li>any of its recorded facts falls in {@code (mark, to]}: a start, a checkpoint attempt (the time the
     *       call began, whether or not it was accepted) or its end (it was still running past the mark); or</li>
     *   <li>it began by {@code mark} and its end was recorded after {@code to}, or not at all while the
     *       process still ran at {@code to}: it ran through the cut.</li>
     * </ul>
     * Why a run's end and not only its checkpoints and outputs: through a frozen link a run's side effects
     * cannot land before {@code to}, and the ledger blocks in its first call after the freeze, so a run
     * that was never paused shows no checkpoint during the cut; what it sent would land when the link came
     * back. What shows it ran is that it had not returned. A run that has returned sends nothing more: the
     * ledger closes its client before it returns.
     */
    private void pastLateMark(Facts facts) {
        Map<String, List<Checkpoint>> byRun = new HashMap<>();
        for (Checkpoint c : facts.records()) {
            byRun.computeIfAbsent(c.run(), r -> new ArrayList<>()).add(c);
        }
        for (Facts.Cut cut : facts.cuts()) {
            long mark = cut.from() + facts.lateMark() + LATE_TOLERANCE_MS;
            if (cut.to() <= mark) {
                continue;
            }
            cutsJudged++;
            String prefix = cut.node() + "/" + cut.pid() + "/";
            for (Map.Entry<String, List<Checkpoint>> run : byRun.entrySet()) {
                if (!run.getKey().startsWith(prefix)) {
                    continue;
                }
                List<Checkpoint> ofRun = run.getValue();
                long began = ofRun.stream().mapToLong(Checkpoint::before).min().orElseThrow();
                if (began >= cut.to()) {
                    continue;
                }
                Long end = ofRun.stream().filter(c -> c.kind() == Checkpoint.Kind.END).map(Checkpoint::after).findFirst().orElse(null);
                if (end != null && end < cut.from()) {
                    continue;
                }
                runsJudged++;
                if (end != null) {
                    latestEndAfterFreeze = Math.max(latestEndAfterFreeze, end - cut.from());
                }
                String where = ofRun.getFirst().robot() + ": run " + run.getKey() + " (" + ofRun.getFirst().slot() + ":"
                        + ofRun.getFirst().epoch() + ") on " + cut.node() + ", whose link was frozen from " + cut.from() + " to "
                        + cut.to() + " (late mark " + facts.lateMark() + " ms, so stopped by " + mark + ")";
                Checkpoint late = ofRun.stream().filter(c -> c.before() > mark && c.before() <= cut.to())
                        .min(Comparator.comparingLong(Checkpoint::before)).orElse(null);
                if (late != null) {
                    found(Violation.PAST_LATE_MARK, where + ": " + late.kind().name().toLowerCase() + " at " + late.before()
                            + " (" + (late.before() - cut.from()) + " ms into the cut)");
                } else if (began <= mark && (end == null ? cut.alive() : end > cut.to())) {
                    found(Violation.PAST_LATE_MARK, where + ": " + (end == null ? "no end recorded, its process still ran at "
                            + cut.to() : "ended at " + end + ", after the link was back"));
                }
            }
        }
    }

    /**
     * How the cuts went, for the run's report: how many were judged, the runs they cut off, and how long
     * after the freeze the latest of those runs returned.
     */
    public String cutSummary(long lateMark) {
        return String.format("%d cuts judged (longer than the late mark %d ms + %d ms), %d runs cut off; the latest returned %s",
                cutsJudged, lateMark, LATE_TOLERANCE_MS, runsJudged,
                latestEndAfterFreeze == Long.MIN_VALUE ? "-" : latestEndAfterFreeze + " ms after its link froze");
    }

    private void notRunning(Facts facts) {
        for (String robot : facts.robots()) {
            Facts.End end = facts.ends().get(robot);
            if (end == null || !"RUNNING".equals(end.state())) {
                found(Violation.NOT_RUNNING, robot + " is " + (end == null ? "missing" : end.state()));
            }
        }
    }

    /** One call of {@code Robot.run}: its start and its accepted writes. */
    private static final class Run {
        final String id;
        final String robot;
        final String slot;
        final long epoch;
        Checkpoint start;
        final List<Checkpoint> accepted = new ArrayList<>();

        private Run(String id, String robot, String slot, long epoch) {
            this.id = id;
            this.robot = robot;
            this.slot = slot;
            this.epoch = epoch;
        }

        static Map<String, List<Run>> of(List<Checkpoint> records) {
            Map<String, Run> byId = new LinkedHashMap<>();
            for (Checkpoint c : records) {
                Run run = byId.computeIfAbsent(c.run(), id -> new Run(id, c.robot(), c.slot(), c.epoch()));
                if (c.kind() == Checkpoint.Kind.START) {
                    run.start = c;
                } else if (c.accepted()) {
                    run.accepted.add(c);
                }
            }
            Map<String, List<Run>> byRobot = new HashMap<>();
            for (Run run : byId.values()) {
                byRobot.computeIfAbsent(run.robot, r -> new ArrayList<>()).add(run);
            }
            return byRobot;
        }
    }
}
