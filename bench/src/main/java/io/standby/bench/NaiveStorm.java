package io.standby.bench;

import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.SlotStore;
import io.standby.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The strategy most first versions use, for the storm's comparison: each node reads the slots, claims the first free
 * one (compare-and-set), reads again at once after a lost race; a winner renews every heartbeat. Its rounds are the
 * reads the slowest node made. One slot per node, so only for N nodes and N slots.
 */
final class NaiveStorm {

    private NaiveStorm() {}

    static StormFill run(Database db, int count, Duration latency, Duration timeout) throws Exception {
        String name = "storm_naive";
        db.initSlots(name, count);
        SlotTiming timing = SlotTiming.defaults();
        SlotLedger ledger = new SlotLedger(count);
        StormCalls calls = new StormCalls(count);
        Tally tally = new Tally(new AtomicLong(), new AtomicLong(), new AtomicLong());
        List<StandbyDatabase> clients = new ArrayList<>();
        try (TcpProxy slow = StormBench.proxy(db)) {
            for (int i = 0; i < count; i++) {
                int node = i;
                clients.add(StandbyDatabase.connect(
                        slow.uri(), name, Duration.ofSeconds(5), s -> s.addCommandListener(calls.of(node))));
            }
            clients.forEach(StandbyDatabase::ping);
            slow.latency(latency);
            calls.reset();
            CountDownLatch stop = new CountDownLatch(1);
            long start = System.nanoTime();
            try (ExecutorService nodes = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < count; i++) {
                    int node = i;
                    SlotStore store = new MongoSlotStore(clients.get(i));
                    SlotStore.Ownership me = new SlotStore.Ownership(
                            new NodeId("10.2." + (i / 200) + "." + (i % 200 + 1), 7000 + i),
                            NodeConfig.newInstanceId(),
                            timing.lease());
                    nodes.submit(() -> node(store, me, node, timing, ledger, tally, stop));
                }
                try {
                    StormBench.awaitFill(
                            ledger,
                            start,
                            timeout,
                            "naive",
                            () -> "claims won " + tally.won().get() + ", failed "
                                    + tally.failed().get());
                } finally {
                    stop.countDown();
                }
                if (ledger.ownedTwice() != null) {
                    throw new IllegalStateException("naive: a slot was owned twice: " + ledger.ownedTwice());
                }
                StormFill.Layout run = new StormFill.Layout("naive: first free slot", "any (addresses unused)", 1);
                return StormFill.of(
                        run,
                        start,
                        ledger,
                        calls,
                        new StormFill.Tally(
                                tally.maxRounds().get(),
                                tally.won().get(),
                                tally.failed().get(),
                                -1,
                                calls.mostSlotReads()));
            } finally {
                clients.forEach(StandbyDatabase::close);
            }
        }
    }

    /** What the naive nodes count together: claims won and failed, and the most rounds one node took to win one. */
    private record Tally(AtomicLong won, AtomicLong failed, AtomicLong maxRounds) {}

    private static void node(
            SlotStore store,
            SlotStore.Ownership me,
            int node,
            SlotTiming timing,
            SlotLedger ledger,
            Tally tally,
            CountDownLatch stop) {
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
                Optional<SlotView> free = slots.stream()
                        .filter(s -> s.owner() == null || s.expired())
                        .findFirst();
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
                    tally.failed().incrementAndGet();
                    continue;
                }
                tally.won().incrementAndGet();
                ledger.won(free.get().id(), node);
                tally.maxRounds().accumulateAndGet(rounds, Math::max);
                long epoch = free.get().epoch() + 1;
                while (!stop.await(timing.heartbeat().toMillis(), TimeUnit.MILLISECONDS)) {
                    if (!store.renew(free.get().id(), epoch, me)) {
                        ledger.lost(free.get().id(), node);
                        break;
                    }
                }
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
