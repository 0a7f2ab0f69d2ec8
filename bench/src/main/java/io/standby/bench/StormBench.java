package io.standby.bench;

import io.standby.slot.ClaimCounts;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A cold-start claim storm: N nodes in this JVM, each with its own client, for M free slots, every database call
 * delayed through a proxy; then, optionally, a tenth of the nodes stop gracefully and the others take their slots
 * ({@link LeavePhase}). For N nodes and N slots also every node on one port, and a naive strategy ({@link NaiveStorm})
 * side by side; {@link StormFill} prints the fills.
 */
@Command(
        name = "storm",
        mixinStandardHelpOptions = true,
        description = {
            "Claim storm from a cold start: N nodes (in this JVM, each with its own client) for M free slots,",
            "every database call delayed through a proxy, default timing; then a tenth of the nodes stop gracefully",
            "and the others take their slots. For M = N also every node on one port, and a naive 'claim the first",
            "free slot' strategy. Fails if a slot was ever owned twice, or the slots were not all owned in time."
        })
final class StormBench implements Callable<Integer> {

    @Mixin
    MongoOption mongo = new MongoOption();

    @Option(names = "--nodes", defaultValue = "100", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--slots", description = "Slots (default: as many as nodes).")
    Integer slotsOption;

    @Option(
            names = "--max-slots",
            paramLabel = "K",
            description = {
                "The most slots one node owns (default: a quarter above the even share, ceil(1.25 M / N):",
                "room for the leavers' slots, as an operator sizing a cluster to lose some nodes would set it)."
            })
    Integer maxSlotsOption;

    @Option(
            names = "--leave",
            paramLabel = "L",
            description = "Nodes that stop gracefully once every slot is owned (default: a tenth of the nodes; 0: no "
                    + "leave phase).")
    Integer leaveOption;

    @Option(
            names = "--latency",
            defaultValue = "25",
            description = "Milliseconds added to every database call (default: ${DEFAULT-VALUE}).")
    long latencyMs;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "120s",
            converter = DurationOption.class,
            description =
                    "How long the fill, and the leave, may each take before the run fails (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(
            names = "--no-warm-up",
            description =
                    "Skip the unmeasured storm (N nodes for N slots) that runs first so that the JIT compiler does "
                            + "not set the time.")
    boolean noWarmUp;

    @Override
    public Integer call() throws Exception {
        int slots = slotsOption == null ? count : slotsOption;
        int leave = leaveOption == null ? count / 10 : leaveOption;
        int maxSlots = maxSlotsOption == null ? (int) Math.ceil(1.25 * slots / count) : maxSlotsOption;
        validate(slots, leave, maxSlots);
        Path logs = Bench.runDirectory("storm");
        // A hundred nodes in this JVM would log every claim and stop; their numbers are what counts here.
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.standby"))
                .setLevel(ch.qos.logback.classic.Level.WARN);
        Duration latency = Duration.ofMillis(latencyMs);
        System.out.printf(
                "claim storm: %d nodes for %d slots (at most %d per node), then %d node(s) leave; %d ms per "
                        + "database call,"
                        + " default timing; logs in %s%n",
                count, slots, maxSlots, leave, latencyMs, logs);
        System.out.println("machine at start: " + Machine.describe());
        List<StormFill> fills = new ArrayList<>();
        LeavePhase.Result left = null;
        try (Database db = mongo.open(logs)) {
            if (!noWarmUp) {
                standby(
                        db,
                        "warm-up",
                        count,
                        1,
                        0,
                        i -> new NodeId("10.9." + (i / 200) + "." + (i % 200 + 1), 7000 + i),
                        latency);
            }
            Run spread = standby(
                    db,
                    "spread",
                    slots,
                    maxSlots,
                    leave,
                    i -> new NodeId("10.0." + (i / 200) + "." + (i % 200 + 1), 7000 + i),
                    latency);
            fills.add(spread.fill);
            left = spread.leave;
            // The other layout and the naive strategy are cheap only at N for N, and a naive node holds one slot.
            if (slots == count && spread.fill.filled()) {
                fills.add(standby(
                                db,
                                "one port",
                                slots,
                                maxSlots,
                                0,
                                i -> new NodeId("10.1." + (i / 200) + "." + (i % 200 + 1), 7700),
                                latency)
                        .fill);
                fills.add(NaiveStorm.run(db, count, latency, timeout));
            }
        }
        System.out.println("machine at end: " + Machine.describe());
        System.out.println();
        StormFill.print(fills);
        if (left != null) {
            System.out.println();
            LeavePhase.print(left);
        }
        for (StormFill f : fills) {
            if (!f.filled()) {
                throw new IllegalStateException(f.strategy() + ", " + f.layout() + ": only " + f.owned() + " of "
                        + f.slots() + " slots owned after " + timeout.toSeconds() + " s");
            }
        }
        if (left != null && !left.done()) {
            throw new IllegalStateException(
                    "leave: the leavers' slots were not all owned again after " + timeout.toSeconds() + " s");
        }
        return 0;
    }

    private void validate(int slots, int leave, int maxSlots) {
        if (count < 1 || count > 1000) {
            throw new IllegalArgumentException("--nodes " + count + " must be 1-1000");
        }
        if (slots < 1 || slots > 100_000) {
            throw new IllegalArgumentException("--slots " + slots + " must be 1-100000");
        }
        if (maxSlots < 1 || (long) maxSlots * count < slots) {
            throw new IllegalArgumentException("--max-slots " + maxSlots + " must be at least 1 and give " + count
                    + " nodes room for " + slots + " slots");
        }
        if (leave < 0 || leave >= count) {
            throw new IllegalArgumentException("--leave " + leave + " must be 0 to " + (count - 1));
        }
        if (leave > 0 && (long) maxSlots * (count - leave) < slots) {
            throw new IllegalArgumentException("--max-slots " + maxSlots + " leaves the " + (count - leave)
                    + " nodes that stay room for only " + (long) maxSlots * (count - leave) + " of " + slots
                    + " slots: raise it, or use fewer --leave");
        }
        if (latencyMs < 0) {
            throw new IllegalArgumentException("--latency " + latencyMs + " must not be negative");
        }
        if (timeout.isZero()) {
            throw new IllegalArgumentException("--timeout 0 must be more than zero");
        }
    }

    /** A storm's fill, and its leave phase if there was one. */
    private record Run(StormFill fill, LeavePhase.Result leave) {}

    private Run standby(
            Database db,
            String layout,
            int slots,
            int maxSlots,
            int leave,
            IntFunction<NodeId> identity,
            Duration latency)
            throws Exception {
        String name = "storm_" + layout.replace(' ', '_').replace('-', '_');
        long init = System.nanoTime();
        db.initSlots(name, slots);
        System.out.printf(
                Locale.ROOT,
                "standby, %s: %d slots created in %.1f s%n",
                layout,
                slots,
                (System.nanoTime() - init) / 1e9);
        SlotTiming timing = SlotTiming.defaults();
        SlotLedger ledger = new SlotLedger(slots);
        StormCalls calls = new StormCalls(count);
        StormRounds perRound = new StormRounds(timing.poll().toNanos());
        List<SlotNode> nodes = new ArrayList<>();
        List<StandbyDatabase> clients = new ArrayList<>();
        try (TcpProxy slow = proxy(db)) {
            for (int i = 0; i < count; i++) {
                int node = i;
                StandbyDatabase client = StandbyDatabase.connect(
                        slow.uri(),
                        name,
                        Duration.ofSeconds(5),
                        s -> s.addCommandListener(calls.of(node)).addCommandListener(perRound.listener()));
                clients.add(client);
                nodes.add(SlotNode.builder(client, NodeConfig.of(identity.apply(i), maxSlots, timing))
                        .listener(listener(ledger, node))
                        .build());
            }
            try {
                // Connections first, then the latency: the storm measures calls, not connection set-up.
                clients.forEach(StandbyDatabase::ping);
                slow.latency(latency);
                calls.reset();
                slow.serverTimes(perRound.serverTimes());
                perRound.start();
                // All at once, as machines booted together would: start() makes a database call.
                long start = System.nanoTime();
                try (ExecutorService starters = Executors.newVirtualThreadPerTaskExecutor()) {
                    nodes.forEach(node -> starters.submit(node::start));
                }
                awaitFill(ledger, start, timeout, "standby, " + layout, () -> claims(nodes));
                long reads = calls.mostSlotReads();
                ClaimCounts claims = ledger.filledAt() != 0 ? settle(nodes, timing) : total(nodes);
                long end = ledger.filledAt() != 0 ? ledger.filledAt() : System.nanoTime();
                long rounds =
                        (long) Math.ceil((end - start) / 1e6 / timing.poll().toMillis());
                StormFill.Tally tally = new StormFill.Tally(
                        rounds, claims.won(), claims.lost() + claims.failed(), claims.failed(), reads);
                StormFill.Layout run = new StormFill.Layout("standby", layout, maxSlots);
                StormFill fill = StormFill.of(run, start, ledger, calls, tally);
                perRound.print(end);
                slow.serverTimes(null);
                if (ledger.ownedTwice() != null) {
                    throw new IllegalStateException(
                            "standby, " + layout + ": a slot was owned twice: " + ledger.ownedTwice());
                }
                StormFill.printLoads(db, name, ledger, nodes);
                LeavePhase.Result left = null;
                if (leave > 0 && fill.filled()) {
                    left = new LeavePhase(nodes, ledger, calls, timing, timeout).run(leave);
                }
                return new Run(fill, left);
            } finally {
                // In parallel and before the proxy closes: a node cut off on its way down waits out its timeouts.
                try (ExecutorService closers = Executors.newVirtualThreadPerTaskExecutor()) {
                    nodes.forEach(node -> closers.submit(node::close));
                }
                clients.forEach(StandbyDatabase::close);
            }
        }
    }

    /**
     * Waits until no node has made a claim for two polls, and returns the claims until then: a node goes on claiming,
     * one compare-and-set after the other, the slots its last read showed free, after the others have taken them and
     * the fill is over. Those claims are the storm's too, and a leave measured before they end would count them as its
     * own.
     */
    private ClaimCounts settle(List<SlotNode> nodes, SlotTiming timing) {
        ClaimCounts atFill = total(nodes);
        long quiet = timing.poll().multipliedBy(2).toNanos();
        long deadline = System.nanoTime() + timeout.toNanos();
        ClaimCounts last = atFill;
        long changed = System.nanoTime();
        while (System.nanoTime() - changed < quiet && System.nanoTime() < deadline) {
            Bench.sleep(Duration.ofMillis(100));
            ClaimCounts now = total(nodes);
            if (!now.equals(last)) {
                last = now;
                changed = System.nanoTime();
            }
        }
        System.out.printf(
                Locale.ROOT,
                "  after the fill: %d more claims (%d won, %d failed) until none for two polls%n",
                tries(last) - tries(atFill),
                last.won() - atFill.won(),
                last.lost() + last.failed() - atFill.lost() - atFill.failed());
        return last;
    }

    private static long tries(ClaimCounts c) {
        return c.won() + c.lost() + c.failed();
    }

    private static SlotListener listener(SlotLedger ledger, int node) {
        return new SlotListener() {
            @Override
            public void acquired(Lease lease) {
                ledger.won(lease.slotId(), node);
            }

            @Override
            public void lost(Lease lease, LossReason reason) {
                ledger.lost(lease.slotId(), node);
            }
        };
    }

    static ClaimCounts total(List<SlotNode> nodes) {
        long won = 0;
        long lost = 0;
        long failed = 0;
        for (SlotNode node : nodes) {
            ClaimCounts c = node.claims();
            won += c.won();
            lost += c.lost();
            failed += c.failed();
        }
        return new ClaimCounts(won, lost, failed);
    }

    private static String claims(List<SlotNode> nodes) {
        ClaimCounts c = total(nodes);
        return "claims won " + c.won() + ", lost " + c.lost() + ", no answer " + c.failed();
    }

    /**
     * Waits until every slot is owned, a slot is owned twice, or {@code timeout} passed; says every 5 s how far it got,
     * so that a slow storm shows its curve.
     */
    static void awaitFill(SlotLedger ledger, long start, Duration timeout, String what, Supplier<String> progress) {
        long deadline = start + timeout.toNanos();
        long nextReport = start + Duration.ofSeconds(5).toNanos();
        while (ledger.filledAt() == 0 && ledger.ownedTwice() == null && System.nanoTime() < deadline) {
            Bench.sleep(Duration.ofMillis(20));
            long now = System.nanoTime();
            if (now >= nextReport) {
                nextReport += Duration.ofSeconds(5).toNanos();
                System.out.printf(
                        Locale.ROOT,
                        "  %s, %3d s: %d slots owned; %s; load %s%n",
                        what,
                        (now - start) / 1_000_000_000,
                        ledger.held(),
                        progress.get(),
                        Machine.loadAverage());
            }
        }
    }

    static TcpProxy proxy(Database db) {
        try {
            return TcpProxy.to(db.uri());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
