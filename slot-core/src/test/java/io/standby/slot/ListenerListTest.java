package io.standby.slot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListenerListTest {

    private static final Lease LEASE = new Lease() {
        @Override
        public String slotId() {
            return "slot-0";
        }

        @Override
        public long epoch() {
            return 3;
        }

        @Override
        public NodeId node() {
            return new NodeId("127.0.0.1", 7001);
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public Duration sinceRenewal() {
            return Duration.ZERO;
        }
    };

    /** Records each call it hears under its name, then throws what it is given, if anything. */
    private record Recording(String name, List<String> heard, Throwable throwing) implements SlotListener {
        @Override
        public void lost(Lease lease, LossReason reason) {
            heard.add(name + " lost " + lease.slotId() + " " + reason);
            if (throwing instanceof RuntimeException e) {
                throw e;
            }
            if (throwing instanceof Error e) {
                throw e;
            }
        }
    }

    /** Records every call it hears, under its name. */
    private record Everything(String name, List<String> heard) implements SlotListener {
        @Override
        public void acquired(Lease lease) {
            heard.add(name + " acquired");
        }

        @Override
        public void acquired(Lease lease, SlotView claimed) {
            heard.add(name + " acquired " + claimed.id());
        }

        @Override
        public void releasing(Lease lease) {
            heard.add(name + " releasing");
        }

        @Override
        public void observed(Lease lease, SlotView slot) {
            heard.add(name + " observed " + slot.id());
        }

        @Override
        public void lost(Lease lease, LossReason reason) {
            heard.add(name + " lost " + reason);
        }

        @Override
        public void paused(Lease lease) {
            heard.add(name + " paused");
        }

        @Override
        public void resumed(Lease lease) {
            heard.add(name + " resumed");
        }

        @Override
        public void claimed(SlotView slot, ClaimOutcome outcome) {
            heard.add(name + " claimed " + outcome);
        }

        @Override
        public void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {
            heard.add(name + " tookOver " + how + " " + unowned.toMillis() + " " + evidence);
        }

        @Override
        public void renewed(Lease lease, Duration latency) {
            heard.add(name + " renewed " + latency.toMillis());
        }

        @Override
        public void renewalFailed(Lease lease) {
            heard.add(name + " renewalFailed");
        }
    }

    @Test
    void everyCallReachesEveryListenerWithItsArguments() {
        List<String> heard = new ArrayList<>();
        SlotListener all = SlotListener.inOrder(new Everything("a", heard), new Everything("b", heard));
        SlotView slot = SlotView.of("slot-0", null, null, Instant.EPOCH, Duration.ofSeconds(5), 3, Duration.ZERO);

        all.acquired(LEASE);
        all.acquired(LEASE, slot);
        all.releasing(LEASE);
        all.observed(LEASE, slot);
        all.lost(LEASE, LossReason.REVOKED);
        all.paused(LEASE);
        all.resumed(LEASE);
        all.claimed(slot, ClaimOutcome.CONFLICT);
        all.tookOver(LEASE, slot, Duration.ofMillis(1500), Takeover.OWNER_GONE, "refused twice");
        all.renewed(LEASE, Duration.ofMillis(12));
        all.renewalFailed(LEASE);

        List<String> calls = List.of(
                "acquired",
                "acquired slot-0",
                "releasing",
                "observed slot-0",
                "lost REVOKED",
                "paused",
                "resumed",
                "claimed CONFLICT",
                "tookOver OWNER_GONE 1500 refused twice",
                "renewed 12",
                "renewalFailed");
        List<String> expected = new ArrayList<>();
        calls.forEach(call -> {
            expected.add("a " + call);
            expected.add("b " + call);
        });
        assertEquals(expected, heard);
    }

    @Test
    void everyListenerHearsALossInOrderEvenIfOnesBeforeItThrow() {
        List<String> heard = new ArrayList<>();
        IllegalStateException first = new IllegalStateException("a meter broke");
        AssertionError second = new AssertionError("a log line broke");
        SlotListener all = SlotListener.inOrder(
                new Recording("metrics", heard, first),
                new Recording("log", heard, second),
                new Recording("robots", heard, null));

        IllegalStateException thrown =
                assertThrows(IllegalStateException.class, () -> all.lost(LEASE, LossReason.FENCED));

        assertEquals(
                List.of("metrics lost slot-0 FENCED", "log lost slot-0 FENCED", "robots lost slot-0 FENCED"),
                heard,
                "the robot runtime, last, heard of the loss although both listeners before it threw");
        assertSame(first, thrown, "the first failure is the one thrown");
        assertEquals(List.of(second), List.of(thrown.getSuppressed()), "the later failure is kept in it");
    }

    @Test
    void anErrorIsThrownAgainOnceAllHaveHeard() {
        List<String> heard = new ArrayList<>();
        AssertionError error = new AssertionError("out of something");
        SlotListener all = SlotListener.inOrder(new Recording("a", heard, error), new Recording("b", heard, null));

        assertSame(error, assertThrows(AssertionError.class, () -> all.lost(LEASE, LossReason.TAKEN)));
        assertEquals(List.of("a lost slot-0 TAKEN", "b lost slot-0 TAKEN"), heard);
    }

    @Test
    void listsInAListAreSpreadInOrderSoThatCallsDoNotNest() {
        List<String> heard = new ArrayList<>();
        SlotListener inner = SlotListener.inOrder(new Recording("a", heard, null), new Recording("b", heard, null));
        SlotListener outer =
                SlotListener.inOrder(new Recording("first", heard, null), inner, new Recording("last", heard, null));

        outer.lost(LEASE, LossReason.RELEASED);

        assertEquals(4, ((ListenerList) outer).listeners().size());
        assertEquals(
                List.of(
                        "first lost slot-0 RELEASED",
                        "a lost slot-0 RELEASED",
                        "b lost slot-0 RELEASED",
                        "last lost slot-0 RELEASED"),
                heard);
    }
}
