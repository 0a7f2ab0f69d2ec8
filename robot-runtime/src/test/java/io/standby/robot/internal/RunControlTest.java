package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What is asked of a run: the first stop request sticks, an interrupt is final, and either ends a wait at once. */
class RunControlTest {

    /** Longer than any test may take: a wait that is not ended early fails the test's bound instead. */
    private static final Duration LONG = Duration.ofMinutes(10);

    private static final long BOUND_S = 10;

    private final RunControl control = new RunControl(RunThreads.VIRTUAL);

    @Test
    void aFreshRunIsAskedNothing() {
        assertFalse(control.stopping());
        assertFalse(control.interrupted());
        assertFalse(control.removed());
        assertNull(control.stop());
        assertNull(control.moveTarget());
    }

    @Test
    void theFirstStopRequestSticksWithItsMoveTarget() {
        control.requestStop(Run.Stop.MOVE, "slot-7");
        control.requestStop(Run.Stop.OPERATOR, null);
        control.requestStop(Run.Stop.MOVE, "slot-8");

        assertEquals(Run.Stop.MOVE, control.stop());
        assertEquals("slot-7", control.moveTarget(), "a later request must not redirect a move under way");
        assertTrue(control.stopping());
        assertFalse(control.interrupted(), "a graceful stop is no interrupt: the run keeps its token");
    }

    @Test
    void aStopRequestAfterAnotherKeepsTheFirstsAbsentTarget() {
        control.requestStop(Run.Stop.RELEASE, null);
        control.requestStop(Run.Stop.MOVE, "slot-7");

        assertEquals(Run.Stop.RELEASE, control.stop());
        assertNull(control.moveTarget());
    }

    @Test
    void anInterruptIsReportedFirstOnlyOnceAndARemovalSticks() {
        assertTrue(control.interruptRemoved(), "the first interrupt");
        assertFalse(control.interrupt(), "a second one");

        assertTrue(control.interrupted());
        assertTrue(control.stopping());
        assertTrue(control.removed(), "a later interrupt for a lost slot must not forget the removal");
        assertNull(control.stop(), "an interrupt is no graceful stop");
    }

    @Test
    void anInterruptForALostSlotIsNoRemoval() {
        control.interrupt();

        assertTrue(control.interrupted());
        assertFalse(control.removed());
    }

    @Test
    void aWaitWithNothingAskedLastsItsWholeDuration() {
        assertTrue(control.sleep(Duration.ofMillis(20)));
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void aWaitAfterAStopRequestEndsAtOnce() {
        control.requestStop(Run.Stop.OPERATOR, null);

        assertFalse(control.sleep(LONG));
    }

    @Test
    void aStopRequestEndsAWaitUnderWay() throws Exception {
        CompletableFuture<Boolean> slept = waitingOnAnotherThread();

        control.requestStop(Run.Stop.OPERATOR, null);

        assertFalse(slept.get(BOUND_S, TimeUnit.SECONDS), "the wait ended early");
    }

    @Test
    void anInterruptEndsAWaitUnderWay() throws Exception {
        CompletableFuture<Boolean> slept = waitingOnAnotherThread();

        control.interrupt();

        assertFalse(slept.get(BOUND_S, TimeUnit.SECONDS), "the wait ended early");
    }

    @Test
    void anInterruptedThreadsWaitEndsAtOnceAndKeepsItsInterruptFlag() throws Exception {
        CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
        CompletableFuture<Boolean> slept = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            Thread.currentThread().interrupt();
            slept.complete(control.sleep(LONG));
            flagKept.complete(Thread.currentThread().isInterrupted());
        });

        assertFalse(slept.get(BOUND_S, TimeUnit.SECONDS));
        assertTrue(flagKept.get(BOUND_S, TimeUnit.SECONDS), "the robot's code must still see that it was interrupted");
        waiter.join();
    }

    /** A robot's long wait on another thread, started and waiting (the test cannot see inside the wait: it retries). */
    private CompletableFuture<Boolean> waitingOnAnotherThread() throws InterruptedException {
        CompletableFuture<Boolean> slept = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> slept.complete(control.sleep(LONG)));
        // Wait until the waiter is parked in its wait, so the change below arrives during it, not before.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        while (waiter.getState() != Thread.State.WAITING
                && waiter.getState() != Thread.State.TIMED_WAITING
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return slept;
    }
}
