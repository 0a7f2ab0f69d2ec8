package io.standby.bench;

import io.standby.slot.ClaimCounts;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * After a storm has filled every slot: some nodes stop gracefully at once ({@link SlotNode#close()}, what a SIGTERM'd
 * node does: its slots released, its registry document removed), and the others take their slots. Cleanly means: only
 * the leavers' slots move, none of the stayers' slots is lost, no slot is owned twice, and no slot is unowned longer
 * than about a lease and two polls (the bound for a dead owner; a released slot should take one poll).
 */
final class LeavePhase {

    /** What the leave did; {@code done} is false if the leavers' slots were not all owned again in time. */
    record Result(
            int leavers,
            int stayers,
            boolean done,
            double seconds,
            long rounds,
            double closeSeconds,
            int leaverSlots,
            int moved,
            int churned,
            long won,
            long failed,
            long noAnswer,
            Stats gapMs,
            long boundMs,
            long overBound,
            int[] perNode,
            int calls,
            long failedCalls) {}

    private final List<SlotNode> nodes;
    private final SlotLedger ledger;
    private final StormCalls calls;
    private final SlotTiming timing;
    private final Duration timeout;

    LeavePhase(List<SlotNode> nodes, SlotLedger ledger, StormCalls calls, SlotTiming timing, Duration timeout) {
        this.nodes = nodes;
        this.ledger = ledger;
        this.calls = calls;
        this.timing = timing;
        this.timeout = timeout;
    }

    /** {@code leave} nodes, spread evenly over the numbering, stop at once; the others stay. */
    Result run(int leave) throws Exception {
        int[] before = ledger.owners();
        Set<Integer> leavers = leavers(before, leave);
        List<SlotNode> stayers = new ArrayList<>();
        List<Integer> stayerIds = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (!leavers.contains(i)) {
                stayers.add(nodes.get(i));
                stayerIds.add(i);
            }
        }
        int leaverSlots = 0;
        for (int o : before) {
            leaverSlots += leavers.contains(o) ? 1 : 0;
        }
        ClaimCounts claimsBefore = StormBench.total(stayers);
        calls.reset();
        ledger.mark();
        System.out.printf(
                "leave: %d nodes stop gracefully, holding %d slots; %d stay%n", leave, leaverSlots, stayers.size());
        long start = System.nanoTime();
        long closed;
        boolean done;
        try (ExecutorService closers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> closes = leavers.stream()
                    .map(i -> closers.submit(nodes.get(i)::close))
                    .<Future<?>>map(f -> f)
                    .toList();
            long deadline = start + timeout.toNanos();
            long nextReport = start + Duration.ofSeconds(5).toNanos();
            while (!(done = ledger.ownedOutside(leavers))
                    && ledger.ownedTwice() == null
                    && System.nanoTime() < deadline) {
                Bench.sleep(Duration.ofMillis(20));
                if (System.nanoTime() >= nextReport) {
                    nextReport += Duration.ofSeconds(5).toNanos();
                    System.out.printf(
                            Locale.ROOT,
                            "  leave, %3d s: %d slots owned; load %s%n",
                            (System.nanoTime() - start) / 1_000_000_000,
                            ledger.held(),
                            Machine.loadAverage());
                }
            }
            for (Future<?> close : closes) {
                close.get();
            }
            closed = System.nanoTime();
        }
        long everyOwned = !done ? System.nanoTime() : leaverSlots == 0 ? start : ledger.lastWinOf(before, leavers);
        if (done) {
            // Two more polls: a stayer that loses a slot just after the refill is churn too.
            Bench.sleep(timing.poll().multipliedBy(2));
        }
        ClaimCounts claimsAfter = StormBench.total(stayers);
        int[] after = ledger.owners();
        int moved = 0;
        for (int s = 0; s < after.length; s++) {
            moved += after[s] != before[s] ? 1 : 0;
        }
        long bound = timing.lease().plus(timing.poll().multipliedBy(2)).toMillis();
        Stats gaps = Stats.of(ledger.gaps().stream().map(ns -> ns / 1_000_000).toList());
        long over = gaps.sorted().stream().filter(ms -> ms > bound).count();
        double seconds = (everyOwned - start) / 1e9;
        if (ledger.ownedTwice() != null) {
            throw new IllegalStateException("leave: a slot was owned twice: " + ledger.ownedTwice());
        }
        Result r = new Result(
                leave,
                stayers.size(),
                done,
                seconds,
                (long) Math.ceil(seconds * 1000 / timing.poll().toMillis()),
                (closed - start) / 1e9,
                leaverSlots,
                moved,
                ledger.churnedOutside(before, leavers),
                claimsAfter.won() - claimsBefore.won(),
                claimsAfter.lost() + claimsAfter.failed() - claimsBefore.lost() - claimsBefore.failed(),
                claimsAfter.failed() - claimsBefore.failed(),
                gaps,
                bound,
                over,
                ledger.spread(stayerIds),
                calls.succeeded(),
                calls.failed());
        System.out.printf(
                Locale.ROOT,
                "leave: %s in %.2f s, %d of %d slots moved, %d of the stayers' slots lost, %d claims won, %d failed%n",
                done ? "every slot owned again" : "NOT every slot owned again",
                seconds,
                moved,
                leaverSlots,
                r.churned,
                r.won,
                r.failed);
        if (calls.failed() > 0) {
            System.out.println("  failed calls: " + calls.failures());
        }
        return r;
    }

    /**
     * {@code leave} nodes spread evenly over the numbering, among the nodes that own a slot if there are enough of
     * them: a leaver without slots would show nothing.
     */
    private Set<Integer> leavers(int[] owners, int leave) {
        Set<Integer> owning = new TreeSet<>();
        for (int o : owners) {
            if (o >= 0) {
                owning.add(o);
            }
        }
        List<Integer> candidates = new ArrayList<>(
                owning.size() >= leave
                        ? owning
                        : IntStream.range(0, nodes.size()).boxed().toList());
        Set<Integer> leavers = new HashSet<>();
        for (int i = 0; i < leave; i++) {
            leavers.add(candidates.get((int) ((long) i * candidates.size() / leave)));
        }
        return leavers;
    }

    static void print(Result r) {
        System.out.println(
                "| nodes leaving (staying) | slots they held | every slot owned again | rounds | leavers' close | "
                        + "slots moved"
                        + " | stayers' slots lost | claims won | failed claims (no answer) | unowned, median / max "
                        + "| over lease + 2 polls"
                        + " | slots per stayer | calls (failed) |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        System.out.printf(
                Locale.ROOT,
                "| %d (%d) | %d | %s | %d | %.2f s | %d | %d | %d | %d (%d) | %s | %d (> %d ms) | %d-%d | %d (%d) |%n",
                r.leavers,
                r.stayers,
                r.leaverSlots,
                r.done ? String.format(Locale.ROOT, "%.2f s", r.seconds) : "not within the timeout",
                r.rounds,
                r.closeSeconds,
                r.moved,
                r.churned,
                r.won,
                r.failed,
                r.noAnswer,
                r.gapMs.count() == 0 ? "-" : r.gapMs.p50() + " / " + r.gapMs.max() + " ms",
                r.overBound,
                r.boundMs,
                r.perNode[0],
                r.perNode[1],
                r.calls,
                r.failedCalls);
    }
}
