package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The runtime's one backoff rule: the first wait, doubled after each failure, never above the cap. */
class BackoffTest {

    private static final Duration FIRST = Duration.ofMillis(50);
    private static final Duration MAX = Duration.ofSeconds(1);

    @Test
    void eachWaitDoublesTheLastUpToTheCapAndStaysThere() {
        Backoff backoff = new Backoff(FIRST, MAX);
        List<Long> waits =
                IntStream.range(0, 8).mapToObj(i -> backoff.next().toMillis()).toList();
        assertEquals(List.of(50L, 100L, 200L, 400L, 800L, 1000L, 1000L, 1000L), waits);
    }

    @Test
    void aResetStartsAgainFromTheFirstWait() {
        Backoff backoff = new Backoff(FIRST, MAX);
        backoff.next();
        backoff.next();
        backoff.reset();
        assertEquals(FIRST, backoff.next());
        assertEquals(FIRST.multipliedBy(2), backoff.next());
    }

    @Test
    void theNthWaitIsTheSameRuleWithoutAnInstance() {
        assertEquals(FIRST, Backoff.wait(FIRST, MAX, 1));
        assertEquals(Duration.ofMillis(400), Backoff.wait(FIRST, MAX, 4));
        assertEquals(MAX, Backoff.wait(FIRST, MAX, 6));
        // A robot that failed a million times still waits the cap, not an overflowed duration.
        assertEquals(MAX, Backoff.wait(FIRST, MAX, 1_000_000));
        assertEquals(Duration.ofDays(1), Backoff.wait(Duration.ofSeconds(1), Duration.ofDays(1), Integer.MAX_VALUE));
    }

    @Test
    void aCapEqualToTheFirstWaitIsAConstantWait() {
        Backoff backoff = new Backoff(MAX, MAX);
        assertEquals(List.of(MAX, MAX, MAX), List.of(backoff.next(), backoff.next(), backoff.next()));
    }

    @Test
    void aFirstWaitOfZeroOrACapBelowItIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, MAX));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(MAX, FIRST));
    }
}
