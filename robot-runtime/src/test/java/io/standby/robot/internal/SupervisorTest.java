package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.robot.runtime.RuntimeConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Restart decisions on a clock that moves only when the test says so: no real waiting. */
class SupervisorTest {

    private final AtomicLong now = new AtomicLong();
    private final Supervisor supervisor = new Supervisor(
            RuntimeConfig.defaults(Duration.ofSeconds(1))
                    .withRestarts(Duration.ofSeconds(1), Duration.ofSeconds(5), 5, Duration.ofMinutes(5)),
            now::get);

    private void tick(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void theBackoffDoublesWithEachFailureAndStopsAtItsCap() {
        assertEquals(Optional.of(Duration.ofSeconds(1)), supervisor.failed());
        assertEquals(Optional.of(Duration.ofSeconds(2)), supervisor.failed());
        assertEquals(Optional.of(Duration.ofSeconds(4)), supervisor.failed());
        assertEquals(Optional.of(Duration.ofSeconds(5)), supervisor.failed(), "capped at the maximum backoff");
    }

    @Test
    void theFifthFailureWithinTheWindowFailsTheRobotForGood() {
        for (int i = 0; i < 4; i++) {
            tick(Duration.ofSeconds(30));
            assertEquals(true, supervisor.failed().isPresent(), "failure " + (i + 1));
        }
        tick(Duration.ofSeconds(30));
        assertEquals(Optional.empty(), supervisor.failed());
        assertEquals(5, supervisor.failures());
    }

    @Test
    void failuresOlderThanTheWindowAreForgottenAndTheBackoffStartsOver() {
        supervisor.failed();
        supervisor.failed();
        supervisor.failed();
        tick(Duration.ofMinutes(5).plusMillis(1));
        assertEquals(Optional.of(Duration.ofSeconds(1)), supervisor.failed(), "only this failure is within the window");
        assertEquals(1, supervisor.failures());
    }
}
