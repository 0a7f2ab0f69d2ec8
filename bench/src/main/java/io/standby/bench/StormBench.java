package io.standby.bench;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandSucceededEvent;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.SlotStore;
import io.standby.testing.TcpProxy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * A cold-start claim storm: N nodes in this JVM, each with its own client, for N free slots, every
 * database call delayed through a proxy. Standby's nodes (membership plan, rendezvous order) in two
 * address layouts, and in the same run a naive strategy: read the slots, claim the first free one, on a
 * lost race read again at once.
 */
@Command(name = "storm", mixinStandardHelpOptions = true,
        description = {"Claim storm from a cold start: N nodes (in this JVM, each with its own client) for N free slots,",
                "every database call delayed through a proxy, default timing. Standby with spread addresses and with",
                "every node on one port, then a naive 'claim the first free slot' strategy. Fails if a slot was ever",
                "owned twice."})
final class StormBench implements Callable<Integer> {

    @Option(names = "--nodes", defaultValue = "100", description = "Nodes, and slots (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--latency", defaultValue = "25", description = "Milliseconds added to every database call (default: ${DEFAULT-VALUE}).")
    long latencyMs;

    @Option(names = "--no-warm-up",
            description = "Skip the unmeasured storm that runs first so that the JIT compiler does not set the time.")
    boolean noWarmUp;

    record Result(String strategy, String layout, double fillSeconds, long rounds, long won, long failed, long halfMs, long ninetyMs,
                  int calls, long callMedianMs, long callP99Ms) {
    }

    @Override
    public Integer call() throws Exception {
        if (count < 1 || count > 1000) {
            throw new IllegalArgumentException("--nodes " + count + " must be 1-1000");
        }
        if (latencyMs < 0) {
            throw new IllegalArgumentException("--latency " + latencyMs + " must not be negative");
        }
        Path logs = Bench.runDirectory("storm");
        // A hundred nodes in this JVM would log every claim and stop; their numbers are what counts here.
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.standby")).setLevel(ch.qos.logback.classic.Level.WARN);
        Duration latency = Duration.ofMillis(latencyMs);
        System.out.printf("claim storm: %d nodes for %d slots, %d ms per database call, default timing; logs in %s%n", count, count, latencyMs, logs);
        System.out.println("machine at start: " + Machine.describe());
        List<Result> results = new ArrayList<>();
        try (Database db = Database.inMemory(logs)) {
            if (!noWarmUp) {
                standby(db, "warm-up", i -> new NodeId("10.9." + (i / 200) + "." + (i % 200 + 1), 7000 + i), latency);
            }
            results.add(standby(db, "spread", i -> new NodeId("10.0." + (i / 200) + "." + (i % 200 + 1), 7000 + i), latency));
            results.add(standby(db, "one port", i -> new NodeId("10.1." + (i / 200) + "." + (i % 200 + 1), 7700), latency));
            results.add(naive(db, latency));
        }
        System.out.println("machine at end: " + Machine.describe());
        System.out.println();
        System.out.println("| strategy | layout | fill | rounds | claims won | failed claims | half filled | 90 % filled | calls | call median | call p99 |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "| %s | %s | %.2f s | %d | %d | %d | %d ms | %d ms | %d | %d ms | %d ms |%n", r.strategy, r.layout,
                    r.fillSeconds, r.rounds, r.won, r.failed, r.halfMs, r.ninetyMs, r.calls, r.callMedianMs, r.callP99Ms);
        }
        return 0;
    }

    /** Records wins; fails the run if a slot is ever held twice. */
    private final class Holders {
        final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
        final Queue<Long> wins = new ConcurrentLinkedQueue<>();
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger maxHolders = new AtomicInteger();
        final AtomicLong filledAt = new AtomicLong();
        final CountDownLatch filled = new CountDownLatch(1);

        void won(String slotId) {
            long at = System.nanoTime();
            wins.add(at);
            int now = holders.computeIfAbsent(slotId, s -> new AtomicInteger()).incrementAndGet();
            maxHolders.accumulateAndGet(now, Math::max);
            if (now == 1 && held.incrementAndGet() == count && filledAt.compareAndSet(0, at)) {
                filled.countDown();
            }
        }

        void lost(String slotId) {
            if (holders.get(slotId).decrementAndGet() == 0) {
                held.decrementAndGet();
            }
        }

        void await(String what) throws InterruptedException {
            if (!filled.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(what + ": only " + held.get() + " of " + count + " slots owned after 120 s");
            }
            if (maxHolders.get() != 1) {
                throw new IllegalStateException(what + ": a slot was owned by " + maxHolders.get() + " nodes at once");
            }
        }
    }

    /** Every successful call's duration, as the driver measured it. */
    private static final class Calls implements CommandListener {
        final Queue<Long> micros = new ConcurrentLinkedQueue<>();

        @Override
        public void commandSucceeded(CommandSucceededEvent event) {
            micros.add(event.getElapsedTime(TimeUnit.MICROSECONDS));
        }
    }

    private Result standby(Database db, String layout, IntFunction<NodeId> identity, Duration latency) throws Exception {
        String name = "storm_" + layout.replace(' ', '_').replace('-', '_');
        db.initSlots(name, count);
        SlotTiming timing = SlotTiming.defaults();
        Holders holders = new Holders();
        SlotListener listener = new SlotListener() {
            @Override
            public void acquired(Lease lease) {
                holders.won(lease.slotId());
            }

            @Override
            public void lost(Lease lease, LossReason reason) {
                holders.lost(lease.slotId());
            }
        };
        Calls calls = new Calls();
        List<SlotNode> nodes = new ArrayList<>();
        List<StandbyDatabase> clients = new ArrayList<>();
        try (TcpProxy slow = proxy(db)) {
            for (int i = 0; i < count; i++) {
                StandbyDatabase client = StandbyDatabase.connect(slow.uri(), name, Duration.ofSeconds(5), s -> s.addCommandListener(calls));
                clients.add(client);
                nodes.add(SlotNode.create(client, NodeConfig.of(identity.apply(i), 1, timing), listener));
            }
            try {
                // Connections first, then the latency: the storm measures calls, not connection set-up.
                clients.forEach(StandbyDatabase::ping);
                slow.latency(latency);
                calls.micros.clear();
                // All at once, as machines booted together would: start() makes a database call.
                long start = System.nanoTime();
                try (ExecutorService starters = Executors.newVirtualThreadPerTaskExecutor()) {
                    nodes.forEach(node -> starters.submit(node::start));
                }
                holders.await("standby, " + layout);
                double fill = (holders.filledAt.get() - start) / 1e9;
                long won = nodes.stream().mapToLong(n -> n.claims().won()).sum();
                long failed = nodes.stream().mapToLong(n -> n.claims().lost() + n.claims().failed()).sum();
                return result("standby", layout, start, fill, (long) Math.ceil(fill * 1000 / timing.poll().toMillis()), won, failed, holders, calls);
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
     * The strategy most first versions use: read the slots, claim the first free one (compare-and-set),
     * read again at once after a lost race; a winner renews every heartbeat. Its rounds are the reads the
     * slowest node made.
     */
    private Result naive(Database db, Duration latency) throws Exception {
        String name = "storm_naive";
        db.initSlots(name, count);
        SlotTiming timing = SlotTiming.defaults();
        Holders holders = new Holders();
        Calls calls = new Calls();
        AtomicLong failed = new AtomicLong();
        AtomicLong won = new AtomicLong();
        AtomicLong maxRounds = new AtomicLong();
        List<StandbyDatabase> clients = new ArrayList<>();
        try (TcpProxy slow = proxy(db)) {
            for (int i = 0; i < count; i++) {
                clients.add(StandbyDatabase.connect(slow.uri(), name, Duration.ofSeconds(5), s -> s.addCommandListener(calls)));
            }
            clients.forEach(StandbyDatabase::ping);
            slow.latency(latency);
            calls.micros.clear();
            CountDownLatch stop = new CountDownLatch(1);
            long start = System.nanoTime();
            try (ExecutorService nodes = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < count; i++) {
                    SlotStore store = new MongoSlotStore(clients.get(i));
                    SlotStore.Ownership me = new SlotStore.Ownership(new NodeId("10.2." + (i / 200) + "." + (i % 200 + 1), 7000 + i),
                            NodeConfig.newInstanceId(), timing.lease());
                    nodes.submit(() -> naiveNode(store, me, timing, holders, won, failed, maxRounds, stop));
                }
                try {
                    holders.await("naive");
                } finally {
                    stop.countDown();
                }
                double fill = (holders.filledAt.get() - start) / 1e9;
                return result("naive: first free slot", "any (addresses unused)", start, fill, maxRounds.get(), won.get(), failed.get(), holders, calls);
            } finally {
                clients.forEach(StandbyDatabase::close);
            }
        }
    }

    private static void naiveNode(SlotStore store, SlotStore.Ownership me, SlotTiming timing, Holders holders, AtomicLong won,
                                  AtomicLong failed, AtomicLong maxRounds, CountDownLatch stop) {
        try {
            long rounds = 0;
            while (stop.getCount() > 0) {
                rounds++;
                List<SlotView> slots;
                try {
                    slots = store.readAll();
                } catch (RuntimeException e) {
                    stop.await(timing.poll().toMillis(), TimeUnit.MILLISECONDS);
                    continue;
                }
                Optional<SlotView> free = slots.stream().filter(s -> s.owner() == null || s.expired()).findFirst();
                if (free.isEmpty()) {
                    stop.await(timing.poll().toMillis(), TimeUnit.MILLISECONDS);
                    continue;
                }
                boolean claimed;
                try {
                    claimed = store.claim(free.get(), me);
                } catch (RuntimeException e) {
                    claimed = false;
                }
                if (!claimed) {
                    failed.incrementAndGet();
                    continue;
                }
                won.incrementAndGet();
                holders.won(free.get().id());
                maxRounds.accumulateAndGet(rounds, Math::max);
                long epoch = free.get().epoch() + 1;
                while (!stop.await(timing.heartbeat().toMillis(), TimeUnit.MILLISECONDS)) {
                    if (!store.renew(free.get().id(), epoch, me)) {
                        holders.lost(free.get().id());
                        break;
                    }
                }
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Result result(String strategy, String layout, long start, double fill, long rounds, long won, long failed, Holders holders,
                          Calls calls) {
        List<Long> sorted = calls.micros.stream().sorted().toList();
        List<Long> wins = holders.wins.stream().map(t -> (t - start) / 1_000_000).sorted().toList();
        Result r = new Result(strategy, layout, fill, rounds, won, failed, wins.get(wins.size() / 2), wins.get(wins.size() * 9 / 10),
                sorted.size(), sorted.get(sorted.size() / 2) / 1000, sorted.get(sorted.size() * 99 / 100) / 1000);
        System.out.printf(Locale.ROOT, "%s, %s: filled in %.2f s, %d rounds, %d claims won, %d failed%n", strategy, layout, fill, rounds, won, failed);
        return r;
    }

    private static TcpProxy proxy(Database db) {
        try {
            return TcpProxy.to(db.uri());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
