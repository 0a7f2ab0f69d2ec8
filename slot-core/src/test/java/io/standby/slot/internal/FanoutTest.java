package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * How a heartbeat's renewals run: every one of them, and the call returns only when all are done, so a renewal is never
 * left running into the next heartbeat unseen. In parallel, one slow renewal never waits for another.
 */
class FanoutTest {

    @Test
    void everyTaskRunsBeforeTheFanoutReturns() {
        for (Fanout fanout : List.of(Fanout.SEQUENTIAL, Fanout.PARALLEL)) {
            for (int n : new int[] {1, 5}) {
                Set<Integer> done = ConcurrentHashMap.newKeySet();
                fanout.runAll(IntStream.range(0, n)
                        .<Runnable>mapToObj(i -> () -> done.add(i))
                        .toList());
                assertEquals(n, done.size(), n + " task(s)");
            }
        }
    }

    @Test
    void inParallelNoRenewalWaitsForAnother() throws Exception {
        // Each task waits for all the others to have started: run one after another, none would finish.
        int n = 4;
        CountDownLatch started = new CountDownLatch(n);
        Set<Integer> done = ConcurrentHashMap.newKeySet();
        Fanout.PARALLEL.runAll(IntStream.range(0, n)
                .<Runnable>mapToObj(i -> () -> {
                    started.countDown();
                    try {
                        if (started.await(30, TimeUnit.SECONDS)) {
                            done.add(i);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })
                .toList());

        assertEquals(n, done.size());
        assertTrue(started.getCount() == 0);
    }
}
