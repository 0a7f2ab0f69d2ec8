package io.standby.bench.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges the invariants on recorded {@link Facts}. Each kind of violation is counted, with a few examples. Time-based
 * checks count a violation only when it is certain from the recorded intervals: an accepted write happened somewhere in
 * {@code [before, after]}, so "w1 before w2" is only claimed when {@code w1.after < w2.before}. So they have no false
 * positives, and may miss a violation that fell within the width of an interval.
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
        PAST_LINK_DEADLINE("robot ran on an owner woken from SIGSTOP past its watch links' deadline"),
        NOT_RUNNING("robots not RUNNING at the end"),
        NOT_A_SLOT("documents of the slots collection that are not slots at the end");

        final String meaning;

        Violation(String meaning) {
            this.meaning = meaning;
        }
    }

    private static final int EXAMPLES = 5;

    private final Map<Violation, Long> counts = new LinkedHashMap<>();
    private final Map<Violation, List<String>> examples = new LinkedHashMap<>();
    /** Rows the facts cannot judge (the link-deadline row without watch links), and why. */
    private final Map<Violation, String> notJudged = new LinkedHashMap<>();

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
        verdict.pastLinkDeadline(facts);
        verdict.notRunning(facts);
        verdict.notASlot(facts);
        return verdict;
    }

    public long count(Violation v) {
        return counts.get(v);
    }

    public boolean passed() {
        return counts.values().stream().allMatch(c -> c == 0);
    }

    /** Whether {@code v} was judged: the link-deadline row is not without watch links. */
    public boolean judged(Violation v) {
        return !notJudged.containsKey(v);
    }

    /** One line per kind (a row not judged says why), then the examples of those that failed. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Violation v : Violation.values()) {
            String name = v.name().toLowerCase().replace('_', '-');
            lines.add(
                    judged(v)
                            ? String.format("  %-18s %6d  (%s)", name, counts.get(v), v.meaning)
                            : String.format(
                                    "  %-18s %6s  (%s: not judged, %s)", name, "-", v.meaning, notJudged.get(v)));
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
                if (amount == null
                        || !amount.equals(out.amount())
                        || !balances.get(out.seq()).equals(out.balance())) {
                    found(
                            Violation.CHANGED,
                            robot + " seq " + out.seq() + ": amount " + out.amount() + " balance " + out.balance()
                                    + ", input amount " + amount + " balance " + balances.get(out.seq()));
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
     * Two runs of one robot overlap for certain when one of them had a write accepted, then the other had one accepted,
     * then the first had another accepted, each ending before the next began.
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
        long aLastStart =
                a.accepted.stream().mapToLong(Checkpoint::before).max().orElseThrow();
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
     * Once a write at epoch E of a slot was accepted, every robot of the slot was fenced at E (the new owner fences
     * them all before it starts any), so no write at an epoch below E may be accepted after it.
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
                    found(
                            Violation.STALE_EPOCH,
                            w.robot() + " at " + w.slot() + ":" + w.epoch() + " (run " + w.run()
                                    + ") accepted in [" + w.before() + ", " + w.after() + "] after " + witness.robot()
                                    + " at epoch "
                                    + witness.epoch() + " (run " + witness.run() + ") in [" + witness.before() + ", "
                                    + witness.after() + "]");
                }
            }
        }
    }

    /**
     * A run starts from the robot's last accepted checkpoint, so its starting offset is at least every offset
     * acknowledged before it began; the final context likewise. A removal and new add starts the robot over, so only
     * facts of the same incarnation are compared, and facts inside a renewal are left out.
     */
    private void lostAcks(Facts facts, Map<String, List<Run>> runs) {
        for (String robot : facts.robots()) {
            List<Facts.Renewal> renewals = facts.renewals().stream()
                    .filter(r -> r.robot().equals(robot))
                    .toList();
            List<Checkpoint> acks = runs.getOrDefault(robot, List.of()).stream()
                    .flatMap(r -> r.accepted.stream())
                    .toList();
            for (Run run : runs.getOrDefault(robot, List.of())) {
                if (run.start == null) {
                    continue;
                }
                int incarnation = incarnation(renewals, run.start.before(), run.start.before());
                if (incarnation < 0) {
                    continue;
                }
                for (Checkpoint ack : acks) {
                    if (ack.after() < run.start.before()
                            && ack.offset() > run.start.offset()
                            && incarnation(renewals, ack.before(), ack.after()) == incarnation) {
                        found(
                                Violation.LOST_ACK,
                                robot + ": run " + run.id + " started at " + run.start.before()
                                        + " from offset " + run.start.offset() + ", but offset " + ack.offset()
                                        + " was acknowledged to run "
                                        + ack.run() + " by " + ack.after());
                        break;
                    }
                }
            }
            Facts.End end = facts.ends().get(robot);
            if (end != null) {
                int last = renewals.size();
                long acked = acks.stream()
                        .filter(a -> incarnation(renewals, a.before(), a.after()) == last)
                        .mapToLong(Checkpoint::offset)
                        .max()
                        .orElse(Long.MIN_VALUE);
                if (acked > end.offset()) {
                    found(
                            Violation.LOST_ACK,
                            robot + ": final context offset " + end.offset() + ", but " + acked + " was acknowledged");
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
     * Recording granularity allowed past the late mark, in ms: the facts are wall-clock milliseconds (one clock, every
     * process is on one host), a run's end is recorded just after {@code Robot.run} returned (the ledger has closed its
     * client by then), and the cut's start is read just after the link froze.
     */
    static final long LATE_TOLERANCE_MS = 100;

    /** The runs judged against a cut, and how late the latest of them ended (see {@link #cutSummary}). */
    private int cutsJudged;

    private int runsJudged;
    private long latestEndAfterFreeze = Long.MIN_VALUE;

    /**
     * No robot runs on a node cut off from the database past its late mark, or, if its slots carried none when the link
     * froze (a watch link covered it), past its lease's deadline ({@link Facts.Cut#deadline}). For a cut of node N's
     * whole link (its slot protocol, its checkpoints and its robots' own collections, frozen through all of
     * {@code [from, to]}), let {@code mark = from + late + LATE_TOLERANCE_MS}, {@code late} being the mark the nodes
     * write (2 heartbeats). The owner pauses its slot's robots once no renewal was acknowledged for {@code late -
     * late/10} since the send of its last acknowledged one; that send came before {@code from} (a renewal sent after
     * the freeze is not answered before {@code to}), so the pause is due before {@code from + late - late/10}, and the
     * tenth of the mark covers the fence check (a quarter of it at most), the interrupt and the run's return. A cut no
     * longer than {@code mark - from} is not judged. Every run of the process N ran then ({@code N/pid/n}) that began
     * before {@code to} is a violation if
     *
     * <ul>
     *   <li>any of its recorded facts falls in {@code (mark, to]}: a start, a checkpoint attempt (the time the call
     *       began, whether or not it was accepted) or its end (it was still running past the mark); or
     *   <li>it began by {@code mark} and its end was recorded after {@code to}, or not at all while the process still
     *       ran at {@code to}: it ran through the cut.
     * </ul>
     *
     * Why a run's end and not only its checkpoints and outputs: through a frozen link a run's side effects cannot land
     * before {@code to}, and the ledger blocks in its first call after the freeze, so a run that was never paused shows
     * no checkpoint during the cut; what it sent would land when the link came back. What shows it ran is that it had
     * not returned. A run that has returned sends nothing more: the ledger closes its client before it returns.
     */
    private void pastLateMark(Facts facts) {
        Map<String, List<Checkpoint>> byRun = new HashMap<>();
        for (Checkpoint c : facts.records()) {
            byRun.computeIfAbsent(c.run(), r -> new ArrayList<>()).add(c);
        }
        for (Facts.Cut cut : facts.cuts()) {
            long mark = cut.from() + cut.deadline(facts.lateMark()) + LATE_TOLERANCE_MS;
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
                Long end = ofRun.stream()
                        .filter(c -> c.kind() == Checkpoint.Kind.END)
                        .map(Checkpoint::after)
                        .findFirst()
                        .orElse(null);
                if (end != null && end < cut.from()) {
                    continue;
                }
                runsJudged++;
                if (end != null) {
                    latestEndAfterFreeze = Math.max(latestEndAfterFreeze, end - cut.from());
                }
                String where = ofRun.getFirst().robot() + ": run " + run.getKey() + " ("
                        + ofRun.getFirst().slot() + ":"
                        + ofRun.getFirst().epoch() + ") on " + cut.node() + ", whose link was frozen from " + cut.from()
                        + " to "
                        + cut.to() + " (" + (cut.stopWithin() >= 0 ? "no late mark, lease deadline " : "late mark ")
                        + cut.deadline(facts.lateMark()) + " ms, so stopped by " + mark + ")";
                Checkpoint late = ofRun.stream()
                        .filter(c -> c.before() > mark && c.before() <= cut.to())
                        .min(Comparator.comparingLong(Checkpoint::before))
                        .orElse(null);
                if (late != null) {
                    found(
                            Violation.PAST_LATE_MARK,
                            where + ": " + late.kind().name().toLowerCase() + " at " + late.before() + " ("
                                    + (late.before() - cut.from()) + " ms into the cut)");
                } else if (began <= mark && (end == null ? cut.alive() : end > cut.to())) {
                    found(
                            Violation.PAST_LATE_MARK,
                            where + ": "
                                    + (end == null
                                            ? "no end recorded, its process still ran at " + cut.to()
                                            : "ended at " + end + ", after the link was back"));
                }
            }
        }
    }

    /**
     * How the cuts went, for the run's report: how many were judged, the runs they cut off, and how long after the
     * freeze the latest of those runs returned.
     */
    public String cutSummary(long lateMark) {
        return String.format(
                "%d cuts judged (longer than the late mark %d ms + %d ms), %d runs cut off; the latest returned %s",
                cutsJudged,
                lateMark,
                LATE_TOLERANCE_MS,
                runsJudged,
                latestEndAfterFreeze == Long.MIN_VALUE ? "-" : latestEndAfterFreeze + " ms after its link froze");
    }

    /**
     * The freezes judged, the runs they stopped, and how late the latest of those returned (see
     * {@link #freezeSummary}).
     */
    private int freezesJudged;

    private int freezesShort;
    private int freezesUnwatched;
    private int frozenRuns;
    private int frozenLeasesTaken;
    private int frozenLeasesResumed;
    private long latestReturnAfterWake = Long.MIN_VALUE;

    /**
     * The slack past a SIGCONT within which a woken owner's runs must have returned, in ms: the watch margin
     * ({@code 0.2 × watch lease}, the time the design leaves between the owner's deadline and the earliest claim, for
     * the fence check at a quarter of it, the interrupt and the run's return) plus {@link #LATE_TOLERANCE_MS} for the
     * recording and for the woken process to be scheduled again.
     */
    static long linkSlack(long watchLeaseMs) {
        return watchLeaseMs / 5 + LATE_TOLERANCE_MS;
    }

    /**
     * A SIGSTOPped owner woken past its link deadline runs no robot code after that deadline. A link's deadline is
     * {@code 0.9 × watch lease} after the send of its last acknowledged ping; from it on, every lease whose last
     * acknowledged write carried a beat no higher than one sent on that link is paused until a write with a higher beat
     * is acknowledged. Every beat is announced on every open link before the write that carries it is sent, and a new
     * link's first ping carries the highest beat used, so every lease of an owner is at a beat sent on each of its open
     * links: all of them pause at the earliest deadline.
     *
     * <p>For a SIGSTOP of node process P stopped through all of {@code [from, to]} (woken at {@code woke}, read after
     * {@code kill -CONT} returned), judged when {@code to - from > 0.9 × watch lease + LATE_TOLERANCE_MS} (its last
     * acknowledged ping was sent before {@code from}, so every deadline passed while it was stopped) and P had at least
     * one link from a standby open just before the SIGSTOP (an owner nobody watches has no link deadline: its robots
     * may rightly run on after a short stop). Let {@code bound = woke + linkSlack(watch lease)}: the process could run
     * no code before {@code woke}, and the fence check (at a quarter of the watch margin) or the answer to its first
     * renewal pauses its leases as soon as it runs. A violation, for each run of P:
     *
     * <ul>
     *   <li>a run that had begun before {@code to} and had not ended before {@code from} (it ran when P stopped) whose
     *       start, checkpoint attempt (the time the call began, accepted or not) or end is recorded after
     *       {@code bound}, or which has no end while P was still alive after {@code bound} (killed later by the suite,
     *       which notes when); a paused lease's robots start again as new runs, so a run that was running when P
     *       stopped never legitimately outlives the bound;
     *   <li>a run that began after {@code to}, at a lease ({@code slot:epoch}) that P held when it stopped (a run of P
     *       at it had begun before {@code from}), with a fact after {@code bound} (or no end while P lived past it),
     *       when that lease has no resume after {@code from} (no {@code resumed} event nor log line of it). A lease
     *       whose slot a standby took by the link never resumes: the owner must never run that slot's robots at that
     *       epoch again. One that was not taken may resume once a renewal with a higher beat is acknowledged, and its
     *       new runs are then legitimate.
     * </ul>
     */
    private void pastLinkDeadline(Facts facts) {
        Facts.Links links = facts.links();
        if (links.watchLeaseMs() <= 0) {
            notJudged.put(Violation.PAST_LINK_DEADLINE, "watch links off");
            return;
        }
        long watch = links.watchLeaseMs();
        long deadline = watch - watch / 10;
        long slack = linkSlack(watch);
        Map<String, List<Checkpoint>> byRun = new HashMap<>();
        for (Checkpoint c : facts.records()) {
            byRun.computeIfAbsent(c.run(), r -> new ArrayList<>()).add(c);
        }
        for (Facts.Freeze freeze : links.freezes()) {
            if (freeze.to() - freeze.from() <= deadline + LATE_TOLERANCE_MS) {
                freezesShort++;
                continue;
            }
            if (freeze.links() < 1) {
                freezesUnwatched++;
                continue;
            }
            freezesJudged++;
            long bound = freeze.woke() + slack;
            String prefix = freeze.node() + "/" + freeze.pid() + "/";
            Map<String, List<Checkpoint>> ofProcess = new LinkedHashMap<>();
            byRun.forEach((run, facts1) -> {
                if (run.startsWith(prefix)) {
                    ofProcess.put(run, facts1);
                }
            });
            Set<String> held = new HashSet<>();
            for (List<Checkpoint> run : ofProcess.values()) {
                if (began(run) < freeze.from()) {
                    held.add(lease(run.getFirst()));
                }
            }
            // For the summary: what became of the leases before the process's next stop, if any.
            long next = links.freezes().stream()
                    .filter(f -> f.pid() == freeze.pid() && f.from() > freeze.from())
                    .mapToLong(Facts.Freeze::from)
                    .min()
                    .orElse(Long.MAX_VALUE);
            for (String lease : held) {
                Long taken = links.takenByLink().get(lease);
                if (taken != null && taken >= freeze.from() && taken < next) {
                    frozenLeasesTaken++;
                }
                if (links.resumes().getOrDefault(lease, List.of()).stream()
                        .anyMatch(t -> t > freeze.from() && t < next)) {
                    frozenLeasesResumed++;
                }
            }
            Long killed = links.killedAt().get(freeze.pid());
            for (Map.Entry<String, List<Checkpoint>> entry : ofProcess.entrySet()) {
                List<Checkpoint> run = entry.getValue();
                long began = began(run);
                Long end = run.stream()
                        .filter(c -> c.kind() == Checkpoint.Kind.END)
                        .map(Checkpoint::after)
                        .findFirst()
                        .orElse(null);
                if (end != null && end < freeze.from()) {
                    continue;
                }
                String lease = lease(run.getFirst());
                boolean frozen = began < freeze.to();
                if (!frozen && (!held.contains(lease) || resumedAfter(links, lease, freeze.from()))) {
                    continue;
                }
                if (frozen) {
                    frozenRuns++;
                    if (end != null) {
                        latestReturnAfterWake = Math.max(latestReturnAfterWake, end - freeze.woke());
                    }
                }
                Long taken = links.takenByLink().get(lease);
                String where = run.getFirst().robot() + ": run " + entry.getKey() + " (" + lease + ") on "
                        + freeze.node()
                        + ", stopped from " + freeze.from() + " to " + freeze.to() + " ("
                        + (freeze.to() - freeze.from())
                        + " ms, watch lease " + watch + " ms, " + freeze.links() + " links), woken by " + freeze.woke()
                        + " (so stopped by " + bound + ")"
                        + (frozen ? "" : ", began after the wake at a lease that never resumed")
                        + (taken == null ? "" : ", its slot taken over by a link (event at " + taken + ")");
                Checkpoint late = run.stream()
                        .filter(c -> c.before() > bound)
                        .min(Comparator.comparingLong(Checkpoint::before))
                        .orElse(null);
                if (late != null) {
                    found(
                            Violation.PAST_LINK_DEADLINE,
                            where + ": " + late.kind().name().toLowerCase() + " at " + late.before() + " ("
                                    + (late.before() - freeze.woke()) + " ms after the wake)");
                } else if (end == null && killed != null && killed > bound) {
                    found(
                            Violation.PAST_LINK_DEADLINE,
                            where + ": no end recorded, and its process still ran at " + killed);
                }
            }
        }
    }

    private static long began(List<Checkpoint> run) {
        return run.stream().mapToLong(Checkpoint::before).min().orElseThrow();
    }

    private static String lease(Checkpoint c) {
        return c.slot() + ":" + c.epoch();
    }

    private static boolean resumedAfter(Facts.Links links, String lease, long from) {
        return links.resumes().getOrDefault(lease, List.of()).stream().anyMatch(t -> t > from);
    }

    /**
     * How the SIGSTOPs went, for the run's report: how many were judged and why others were not, the runs they stopped,
     * how long after the wake the latest of those returned, and what became of the leases.
     */
    public String freezeSummary(long watchLeaseMs) {
        if (watchLeaseMs <= 0) {
            return "not judged (watch links off)";
        }
        return String.format(
                "%d judged (longer than 0.9 x the watch lease %d ms + %d ms, of a node with a link open), %d shorter, "
                        + "%d of a node without links; %d runs stopped, the latest returned %s (the bound: %d ms); "
                        + "of the leases they held, "
                        + "%d taken by a link and %d resumed after (before the process's next stop)",
                freezesJudged,
                watchLeaseMs,
                LATE_TOLERANCE_MS,
                freezesShort,
                freezesUnwatched,
                frozenRuns,
                latestReturnAfterWake == Long.MIN_VALUE ? "-" : latestReturnAfterWake + " ms after SIGCONT",
                linkSlack(watchLeaseMs),
                frozenLeasesTaken,
                frozenLeasesResumed);
    }

    private void notRunning(Facts facts) {
        for (String robot : facts.robots()) {
            Facts.End end = facts.ends().get(robot);
            if (end == null || !"RUNNING".equals(end.state())) {
                found(Violation.NOT_RUNNING, robot + " is " + (end == null ? "missing" : end.state()));
            }
        }
    }

    /** A reader of {@code db.slots.find()}, such as a script of the operator's, takes every document for a slot. */
    private void notASlot(Facts facts) {
        for (Object id : facts.slotDocuments()) {
            if (!(id instanceof String s && s.matches("slot-\\d+"))) {
                found(Violation.NOT_A_SLOT, "slots holds " + id);
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
