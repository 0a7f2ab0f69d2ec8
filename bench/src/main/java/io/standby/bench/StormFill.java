package io.standby.bench;

import io.standby.slot.NodeTable;
import io.standby.slot.NodeView;
import io.standby.slot.SlotNode;
import io.standby.slot.StandbyDatabase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How a storm's fill went, for one strategy and layout, and its row in the tool's table; {@code owned} is less than
 * {@code slots} if it did not finish in time. Rounds are poll intervals elapsed (for the naive strategy, the reads of
 * its slowest node), {@code reads} the most reads of the slots by one node, {@code failed} the claims that lost a race
 * or got no answer.
 */
record StormFill(
        String strategy,
        String layout,
        int slots,
        int maxSlots,
        int owned,
        double seconds,
        long rounds,
        long reads,
        long won,
        long failed,
        long noAnswer,
        long halfMs,
        long ninetyMs,
        int mostHeld,
        int[] perNode,
        int calls,
        long failedCalls,
        Stats callMs) {

    boolean filled() {
        return owned == slots;
    }

    /**
     * The load scores the plans ranked the nodes by, as the registry shows them now, for the nodes with slots and those
     * without: a node whose score is a step of 10 above the others' gets slots only once they are full.
     */
    static void printLoads(Database db, String name, SlotLedger ledger, List<SlotNode> slotNodes) {
        int[] held = new int[slotNodes.size()];
        for (int o : ledger.owners()) {
            if (o >= 0) {
                held[o]++;
            }
        }
        Set<String> owning = new HashSet<>();
        for (int i = 0; i < held.length; i++) {
            if (held[i] > 0) {
                owning.add(slotNodes.get(i).config().node().toString());
            }
        }
        try (StandbyDatabase client = db.connect(name)) {
            Map<Boolean, List<Integer>> loads = new TreeMap<>();
            for (NodeView n : new NodeTable(client).list()) {
                loads.computeIfAbsent(owning.contains(n.id().toString()), k -> new ArrayList<>())
                        .add(n.load());
            }
            loads.values().forEach(Collections::sort);
            System.out.printf(
                    "  load scores in the registry after the fill: nodes with slots %s; without %s%n",
                    range(loads.get(true)), range(loads.get(false)));
        } catch (RuntimeException e) {
            System.out.println("  load scores in the registry after the fill: cannot read them: " + e.getMessage());
        }
    }

    private static String range(List<Integer> loads) {
        return loads == null || loads.isEmpty()
                ? "(none)"
                : loads.size() + " nodes, " + loads.getFirst() + "-" + loads.getLast();
    }

    /** What was run: the claim strategy, the layout of the nodes' addresses, and the most slots a node may own. */
    record Layout(String strategy, String layout, int maxSlots) {}

    /**
     * What the nodes counted: rounds, claims won, claims failed and of those the ones with no answer ({@code -1}: not
     * counted), and the most reads of the slots by one node.
     */
    record Tally(long rounds, long won, long failed, long noAnswer, long reads) {}

    static StormFill of(Layout run, long start, SlotLedger ledger, StormCalls calls, Tally tally) {
        String strategy = run.strategy();
        String layout = run.layout();
        long rounds = tally.rounds();
        long won = tally.won();
        long failed = tally.failed();
        int slots = ledger.owners().length;
        int owned = ledger.held();
        long end = ledger.filledAt() != 0 ? ledger.filledAt() : System.nanoTime();
        long half = ledger.halfAt() == 0 ? -1 : (ledger.halfAt() - start) / 1_000_000;
        long ninety = ledger.ninetyAt() == 0 ? -1 : (ledger.ninetyAt() - start) / 1_000_000;
        List<Integer> everyNode = new ArrayList<>();
        for (int i = 0; i < calls.nodes(); i++) {
            everyNode.add(i);
        }
        StormFill f = new StormFill(
                strategy,
                layout,
                slots,
                run.maxSlots(),
                owned,
                (end - start) / 1e9,
                rounds,
                tally.reads(),
                won,
                failed,
                tally.noAnswer(),
                half,
                ninety,
                ledger.mostHeld(),
                ledger.spread(everyNode),
                calls.succeeded(),
                calls.failed(),
                calls.millis());
        System.out.printf(
                Locale.ROOT,
                "%s, %s: %s in %.2f s, %d rounds, %d claims won, %d failed%n",
                strategy,
                layout,
                f.filled() ? "filled" : "NOT filled (" + owned + " of " + slots + " owned)",
                f.seconds,
                rounds,
                won,
                failed);
        if (calls.failed() > 0) {
            System.out.println("  failed calls: " + calls.failures());
        }
        return f;
    }

    static void print(List<StormFill> fills) {
        System.out.println(
                "| strategy | layout | slots (max per node) | fill | rounds | most slot reads by a node | claims "
                        + "won | failed claims"
                        + " (no answer) | half filled | 90 % filled | slots per node | calls (failed) | call median "
                        + "| call p99 |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (StormFill f : fills) {
            String fill = f.filled()
                    ? String.format(Locale.ROOT, "%.2f s", f.seconds)
                    : String.format(
                            Locale.ROOT,
                            "not filled: %d owned after %.0f s (at most %d at once)",
                            f.owned,
                            f.seconds,
                            f.mostHeld);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %d (%d) | %s | %d | %d | %d | %d (%s) | %s | %s | %d-%d | %d (%d) | %s | %s |%n",
                    f.strategy,
                    f.layout,
                    f.slots,
                    f.maxSlots,
                    fill,
                    f.rounds,
                    f.reads,
                    f.won,
                    f.failed,
                    f.noAnswer < 0 ? "-" : Long.toString(f.noAnswer),
                    ms(f.halfMs),
                    ms(f.ninetyMs),
                    f.perNode[0],
                    f.perNode[1],
                    f.calls,
                    f.failedCalls,
                    f.callMs.count() == 0 ? "-" : f.callMs.p50() + " ms",
                    f.callMs.count() == 0 ? "-" : f.callMs.p99() + " ms");
        }
    }

    private static String ms(long ms) {
        return ms < 0 ? "-" : ms + " ms";
    }
}
