package io.standby.slot;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandSucceededEvent;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestMongo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cold-start claim storm: 100 nodes (in this JVM, each with its own client) for 100 free slots, every
 * database call delayed by 25 ms through a proxy, default timing. Prints {@code BENCHMARK} lines: fill time,
 * rounds (polls) to fill, claims won and failed, and how long the database calls took meanwhile; fails only
 * if a slot was ever owned twice. Run with {@code -Dstandby.bench=true} (see docs/BENCHMARKS.md).
 *
 * <p>A hundred nodes share two cores here, where a real cluster gives each its own machine, so one
 * unmeasured storm first warms the JVM up: otherwise the JIT compiler, not the protocol, sets the time.
 */
@EnabledIfSystemProperty(named = "standby.bench", matches = "true")
class ClaimStormBenchmark {

    private static final int NODES = Integer.getInteger("standby.bench.nodes", 100);
    private static final Duration LATENCY = Duration.ofMillis(Long.getLong("standby.bench.latency", 25));

    @BeforeAll
    static void warmUp() throws Exception {
        storm("warm-up", i -> new NodeId("10.9." + (i / 200) + "." + (i % 200 + 1), 7000 + i), false);
    }

    @Test
    void spreadAddresses() throws Exception {
        storm("spread", i -> new NodeId("10.0." + (i / 200) + "." + (i % 200 + 1), 7000 + i), true);
    }

    @Test
    void everyNodeOnOnePort() throws Exception {
        storm("one-port", i -> new NodeId("10.1." + (i / 200) + "." + (i % 200 + 1), 7700), true);
    }

    private static void storm(String layout, IntFunction<NodeId> identity, boolean print) throws Exception {
        String db = TestMongo.freshDatabase("storm_" + layout);
        SlotTiming timing = SlotTiming.defaults();
        List<SlotNode> nodes = new ArrayList<>();
        List<StandbyDatabase> clients = new ArrayList<>();
        Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
        Queue<Long> acquiredAt = new ConcurrentLinkedQueue<>();
        AtomicInteger slotsHeld = new AtomicInteger();
        AtomicLong filledAt = new AtomicLong();
        CountDownLatch filled = new CountDownLatch(1);
        AtomicInteger maxHolders = new AtomicInteger();
        SlotListener exclusive = new SlotListener() {
            @Override
            public void acquired(Lease lease) {
                long at = System.nanoTime();
                acquiredAt.add(at);
                int now = holders.computeIfAbsent(lease.slotId(), s -> new AtomicInteger()).incrementAndGet();
                if (now == 1 && slotsHeld.incrementAndGet() == NODES && filledAt.compareAndSet(0, at)) {
                    filled.countDown();
                }
                maxHolders.accumulateAndGet(now, Math::max);
            }

            @Override
            public void lost(Lease lease, LossReason reason) {
                if (holders.get(lease.slotId()).decrementAndGet() == 0) {
                    slotsHeld.decrementAndGet();
                }
            }
        };
        Queue<Long> callMicros = new ConcurrentLinkedQueue<>();
        CommandListener calls = new CommandListener() {
            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                callMicros.add(event.getElapsedTime(TimeUnit.MICROSECONDS));
            }
        };
        try (StandbyDatabase admin = StandbyDatabase.connect(TestMongo.uri(), db, Duration.ofSeconds(10), null);
             TcpProxy slow = TcpProxy.to(TestMongo.uri())) {
            new SlotTable(admin).init(NODES);
            for (int i = 0; i < NODES; i++) {
                StandbyDatabase client = StandbyDatabase.connect(slow.uri(), db, Duration.ofSeconds(5), s -> s.addCommandListener(calls));
                clients.add(client);
                nodes.add(SlotNode.create(client, NodeConfig.of(identity.apply(i), 1, timing), exclusive));
            }
            try {
                // Connections first, then the latency: the storm measures calls, not connection set-up.
                clients.forEach(StandbyDatabase::ping);
                slow.latency(LATENCY);
                callMicros.clear();
                // All at once, as machines booted together would: start() makes a database call, and
                // starting the nodes one after another would measure the starts, not the storm.
                long start = System.nanoTime();
                try (ExecutorService starters = Executors.newVirtualThreadPerTaskExecutor()) {
                    nodes.forEach(node -> starters.submit(node::start));
                }
                assertTrue(filled.await(60, TimeUnit.SECONDS), "every slot owned within a minute");
                assertEquals(1, maxHolders.get(), "a slot was owned twice");
                long won = nodes.stream().mapToLong(n -> n.claims().won()).sum();
                long lost = nodes.stream().mapToLong(n -> n.claims().lost()).sum();
                long failed = nodes.stream().mapToLong(n -> n.claims().failed()).sum();
                double fill = (filledAt.get() - start) / 1e9;
                List<Long> sorted = callMicros.stream().sorted().toList();
                List<Long> wins = acquiredAt.stream().map(t -> (t - start) / 1_000_000).sorted().toList();
                if (print) {
                    System.out.printf("BENCHMARK storm layout=%s nodes=%d slots=%d latency=%dms fill=%.2fs rounds=%d won=%d"
                                    + " failed-claims=%d (lost=%d, no-answer=%d) half-filled=%dms 90%%-filled=%dms calls=%d"
                                    + " call-median=%dms call-p99=%dms%n",
                            layout, NODES, NODES, LATENCY.toMillis(), fill, (long) Math.ceil(fill / timing.poll().toMillis() * 1000),
                            won, lost + failed, lost, failed, wins.get(wins.size() / 2), wins.get(wins.size() * 9 / 10), sorted.size(),
                            sorted.get(sorted.size() / 2) / 1000, sorted.get(sorted.size() * 99 / 100) / 1000);
                }
            } finally {
                // In parallel and before the proxy closes: a node cut off on its way down waits out its timeouts.
                try (ExecutorService closers = Executors.newVirtualThreadPerTaskExecutor()) {
                    nodes.forEach(node -> closers.submit(node::close));
                }
                clients.forEach(StandbyDatabase::close);
            }
        }
    }
}
