package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.runtime.RuntimeConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The supervisor's failure window at its edge, and a crash loop under a high limit, on a hand-driven clock. */
class SupervisorWindowTest {

    private final AtomicLong now = new AtomicLong();

    private Supervisor supervisor(int limit) {
        return new Supervisor(
                RuntimeConfig.defaults(Duration.ofSeconds(1))
                        .withRestarts(Duration.ofSeconds(1), Duration.ofSeconds(5), limit, Duration.ofMinutes(5)),
                now::get);
    }

    @Test
    void aFailureExactlyOneWindowOldStillCounts() {
        Supervisor supervisor = supervisor(5);
        supervisor.failed();
        now.addAndGet(Duration.ofMinutes(5).toNanos());

        assertEquals(Optional.of(Duration.ofSeconds(2)), supervisor.failed(), "the second failure within the window");
        assertEquals(2, supervisor.failures());
    }

    @Test
    void aRobotFailingOftenButSlowlyIsRestartedForeverAtTheCappedBackoff() {
        Supervisor supervisor = supervisor(5);
        for (int i = 0; i < 50; i++) {
            Optional<Duration> backoff = supervisor.failed();
            assertTrue(backoff.isPresent(), "failure " + (i + 1) + ": never more than 4 within the window");
            now.addAndGet(Duration.ofMinutes(2).toNanos());
        }
        assertEquals(3, supervisor.failures(), "the last failure and the two before it, within five minutes");
    }

    @Test
    void manyFailuresUnderAHighLimitKeepTheBackoffAtItsCap() {
        Supervisor supervisor = supervisor(1000);
        Optional<Duration> backoff = Optional.empty();
        for (int i = 0; i < 100; i++) {
            backoff = supervisor.failed();
        }
        assertEquals(Optional.of(Duration.ofSeconds(5)), backoff, "capped, not overflowed by the doubling");
    }

    @Test
    void aLimitOfOneFailsTheRobotAtItsFirstFailure() {
        assertEquals(Optional.empty(), supervisor(1).failed());
    }
}
