package io.standby.slot.internal;

import io.standby.slot.ManualClock;
import io.standby.slot.NodeId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule of watch links, both sides on one hand-driven clock: the owner ({@link Watchers}) pauses a
 * lease once a link's deadline passed, 0.9 watch leases after the send of the last ping acknowledged,
 * unless a beat higher than any sent on the link was acknowledged for the slot; the standby
 * ({@link Watches}) may claim by a dead link only 1.1 watch leases after it received the last ping it
 * acknowledged, and only at beats up to the highest received.
 */
class WatchLinksTest {

    private static final Duration P = Duration.ofSeconds(1);
    private static final NodeId OWNER = new NodeId("10.0.0.1", 7700);
    private final ManualClock clock = new ManualClock();
    private final AtomicInteger renewals = new AtomicInteger();
    private final AtomicLong beat = new AtomicLong(10);
    private final Watchers watchers = new Watchers(clock, P, renewals::incrementAndGet);
    private final List<Watchers.Ping> sent = new ArrayList<>();

    WatchLinksTest() {
        watchers.bind(beat::get, Duration.ofSeconds(20));
    }

    /** A link whose pings the test delivers by hand. */
    private final class Recorded implements Watchers.Link {
        boolean closed;

        @Override
        public void send(Watchers.Ping ping) {
            sent.add(ping);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private long now() {
        return clock.nanoTime();
    }

    @Test
    void theOwnerBlocksALeaseAtItsBeatOnlyOnceTheDeadlineFromTheLastAcknowledgedSendHasPassed() {
        Object link = watchers.opened(new Recorded());
        assertEquals(1, sent.size(), "a link is pinged as soon as it opens");
        assertEquals(10, sent.getFirst().beat(), "a ping carries the highest beat used");
        clock.tick(Duration.ofMillis(100));
        watchers.acked(link, sent.getFirst().seq());
        // Acknowledged 100 ms after its send: the deadline still counts from the send.
        clock.tick(Duration.ofMillis(799));
        assertFalse(watchers.blocks(10, now()), "0.9 s after the send less 1 ms");
        clock.tick(Duration.ofMillis(1));
        assertTrue(watchers.blocks(10, now()), "0.9 s after the send of the last acknowledged ping");
        assertTrue(watchers.blocks(3, now()), "a lower beat too");
        assertFalse(watchers.blocks(11, now()), "a beat higher than any sent on the link: a claim by it cannot match");
    }

    @Test
    void aFirstPingCountsBeforeItsAcknowledgement() {
        watchers.opened(new Recorded());
        clock.tick(Duration.ofMillis(100));
        watchers.tick();
        clock.tick(Duration.ofMillis(799));
        assertFalse(watchers.blocks(10, now()));
        clock.tick(Duration.ofMillis(1));
        assertTrue(watchers.blocks(10, now()), "0.9 s after the first ping: the standby received it no earlier than it was sent");
    }

    @Test
    void everyNewBeatIsAnnouncedBeforeItIsWrittenAndRaisesWhatALeaseMustOutrun() {
        Object link = watchers.opened(new Recorded());
        watchers.tick();
        watchers.acked(link, sent.getLast().seq());
        beat.set(11);
        watchers.announce(11);
        assertEquals(11, sent.getLast().beat());
        clock.tick(Duration.ofMillis(900));
        assertTrue(watchers.blocks(11, now()), "a renewal announced on the link does not outrun it");
        assertFalse(watchers.blocks(12, now()));
    }

    @Test
    void aLinkSilentForHalfAWatchLeaseEndsAndTheOwnerRenewsAtOnce() {
        Recorded recorded = new Recorded();
        Object link = watchers.opened(recorded);
        watchers.tick();
        watchers.acked(link, sent.getLast().seq());
        clock.tick(Duration.ofMillis(499));
        watchers.tick();
        assertEquals(0, renewals.get());
        assertFalse(recorded.closed);
        clock.tick(Duration.ofMillis(1));
        int before = sent.size();
        watchers.tick();
        assertEquals(1, renewals.get(), "a renewal at once, to land a higher beat before the deadline");
        assertTrue(recorded.closed);
        assertEquals(before, sent.size(), "an ended link is pinged no more, so its highest beat stays put");
        assertEquals(10, watchers.endedFloor(), "no new claim reuses a beat sent on it");
        clock.tick(Duration.ofMillis(400));
        assertTrue(watchers.blocks(10, now()), "still blocks until a higher beat is acknowledged");
    }

    @Test
    void anEndedLinkIsKeptForTwoLeasesAndAGoodbyeForgetsItAtOnce() {
        Object ended = watchers.opened(new Recorded());
        watchers.tick();
        watchers.ended(ended, "end of stream");
        assertEquals(1, renewals.get());
        clock.tick(Duration.ofSeconds(40));
        watchers.tick();
        assertTrue(watchers.blocks(10, now()), "40 s after its end: the lease is 20 s, kept for a minute");
        clock.tick(Duration.ofSeconds(20));
        watchers.tick();
        assertFalse(watchers.blocks(10, now()), "forgotten after a minute");

        Object bye = watchers.opened(new Recorded());
        watchers.tick();
        watchers.goodbye(bye);
        clock.tick(Duration.ofSeconds(5));
        assertFalse(watchers.blocks(10, now()), "the standby gave the link up: it claims nothing by it");
        assertEquals(1, renewals.get(), "a goodbye needs no renewal");
    }

    // The standby's side.

    private final List<Watches.Link> opened = new ArrayList<>();
    private final Watches watches = new Watches(clock, (target, link) -> {
        opened.add(link);
        return () -> { };
    });
    private final Watches.Target target = new Watches.Target(OWNER, "i-1", 7701, P, 10);

    private Watches.Link watched() {
        watches.watch(List.of(target));
        Watches.Link link = opened.getLast();
        assertTrue(link.authenticated("i-1"));
        return link;
    }

    @Test
    void aStandbyClaimsByADeadLinkOnly1point1WatchLeasesAfterTheLastPingItAcknowledged() {
        Watches.Link link = watched();
        assertTrue(link.pinged(10));
        clock.tick(Duration.ofMillis(100));
        assertTrue(link.pinged(12));
        link.ended("end of stream");
        Watches.Claimable dead = new Watches.Claimable(target, 12, Duration.ofMillis(1100), "its watch link end of stream", 1);
        assertEquals(List.of(dead), watches.unmarked(), "to be marked in the database at once");
        clock.tick(Duration.ofMillis(1099));
        watches.marked(dead);
        assertTrue(watches.unmarked().isEmpty());
        assertTrue(watches.claimable().isEmpty(), "1.1 s after the last ping less 1 ms");
        assertTrue(watches.mayClaim(OWNER, "i-1", 12).isEmpty());
        clock.tick(Duration.ofMillis(1));
        assertEquals(List.of(dead), watches.claimable());
        assertEquals(Duration.ofMillis(1100), watches.mayClaim(OWNER, "i-1", 12).orElseThrow(), "the mark must be as old");
        assertTrue(watches.mayClaim(OWNER, "i-1", 13).isEmpty(), "never above the highest beat received");
        assertTrue(watches.mayClaim(OWNER, "i-2", 12).isEmpty(), "another instance at the same address is another owner");
    }

    @Test
    void aDeadLinkNotMarkedInTheDatabaseIsNeverClaimedBy() {
        Watches.Link link = watched();
        assertTrue(link.pinged(10));
        link.ended("end of stream");
        clock.tick(Duration.ofSeconds(5));
        assertTrue(watches.claimable().isEmpty(), "without the mark, the server's clock could not judge the wait");
        assertEquals(1, watches.unmarked().size());
    }

    /** Marks every dead link, as the standby does once the database acknowledged its stamp. */
    private void markAll() {
        watches.unmarked().forEach(watches::marked);
    }

    @Test
    void aLiveLinkIsNeverClaimedByAndSilenceKillsIt() {
        Watches.Link link = watched();
        for (int i = 0; i < 30; i++) {
            assertTrue(link.pinged(10 + i));
            clock.tick(Duration.ofMillis(100));
            assertTrue(watches.claimable().isEmpty(), "pinged every 100 ms: alive");
        }
        clock.tick(Duration.ofMillis(400));
        assertFalse(link.pinged(50), "silent for half a watch lease: dead, and a late ping is not acknowledged");
        markAll();
        clock.tick(Duration.ofMillis(1100));
        assertEquals(39, watches.claimable().getFirst().maxBeat(), "the beat of the last ping acknowledged");
    }

    @Test
    void aLinkThatNeverHeardAPingOrTheWrongInstanceGivesNothing() {
        Watches.Link link = watched();
        link.ended("connect refused");
        clock.tick(Duration.ofSeconds(5));
        assertTrue(watches.claimable().isEmpty(), "no ping, no beat to claim at");
        assertTrue(watches.unmarked().isEmpty(), "nothing to mark either");

        watches.watch(List.of());
        Watches.Target other = new Watches.Target(OWNER, "i-2", 7701, P, 10);
        watches.watch(List.of(other));
        assertFalse(opened.getLast().authenticated("i-3"), "another process answers at that port");
        assertFalse(opened.getLast().pinged(99));
        clock.tick(Duration.ofSeconds(5));
        assertTrue(watches.claimable().isEmpty());
    }

    @Test
    void aDeadLinkIsKeptBesideANewOneAndForgottenAfterHalfAMinute() {
        Watches.Link first = watched();
        assertTrue(first.pinged(10));
        first.ended("connection reset");
        watches.watch(List.of(target));
        assertEquals(1, opened.size(), "a link that died young: the next one waits a second");
        clock.tick(Duration.ofSeconds(1));
        watches.watch(List.of(target));
        assertEquals(2, opened.size(), "the owner still renews: a new link beside the dead one");
        markAll();
        clock.tick(Duration.ofMillis(1100));
        assertEquals(10, watches.claimable().getFirst().maxBeat());
        clock.tick(Watches.FORGET_AFTER);
        watches.watch(List.of(target));
        assertTrue(watches.claimable().stream().noneMatch(c -> c.maxBeat() == 10), "forgotten");
    }

    @Test
    void aMarkCountsOnlyForTheLinksThatHadDiedWhenItWasTaken() {
        Watches.Link first = watched();
        assertTrue(first.pinged(10));
        first.ended("connection reset");
        watches.watch(List.of(target));
        clock.tick(Duration.ofSeconds(1));
        watches.watch(List.of(target));
        Watches.Link second = opened.getLast();
        assertTrue(second.authenticated("i-1"));
        List<Watches.Claimable> dying = watches.unmarked();
        assertEquals(List.of(10L), dying.stream().map(Watches.Claimable::maxBeat).toList());
        // While the stamp for the first is on its way, the second link has a ping and dies.
        assertTrue(second.pinged(20));
        second.ended("end of stream");
        watches.marked(dying.getFirst());
        assertEquals(List.of(20L), watches.unmarked().stream().map(Watches.Claimable::maxBeat).toList(),
                "a stamp written before this link's last ping does not date its end");
    }

    @Test
    void aClaimByOneDeadLinkForgetsThatLinkOnlyAndAYoungerOneToTheSameOwnerStillCounts() {
        Watches.Link first = watched();
        assertTrue(first.pinged(10));
        first.ended("connection reset");
        clock.tick(Duration.ofSeconds(1));
        watches.watch(List.of(target));
        Watches.Link second = opened.getLast();
        assertTrue(second.authenticated("i-1"));
        assertTrue(second.pinged(20));
        second.ended("end of stream");
        markAll();
        clock.tick(Duration.ofMillis(1100));
        Watches.Claimable byFirst = watches.claimable().stream().filter(c -> c.maxBeat() == 10).findFirst().orElseThrow();
        watches.forget(byFirst);
        assertEquals(List.of(20L), watches.claimable().stream().map(Watches.Claimable::maxBeat).toList(),
                "the younger link still covers the slots the owner wrote at beats up to 20");
    }

    @Test
    void aPingAtALowerBeatOrFarAboveWhatTheOwnersDocumentShowedIsRefusedCountedAndEndsTheLink() {
        Watches.Link link = watched();
        assertTrue(link.pinged(12));
        assertFalse(link.pinged(11), "beats on a link never go back");
        assertEquals(1, watches.stats().refused());
        assertFalse(link.pinged(13), "the link ended");
        markAll();
        clock.tick(Duration.ofMillis(1100));
        assertEquals(List.of(12L), watches.claimable().stream().map(Watches.Claimable::maxBeat).toList(),
                "the pings before it still count; the refused one raised nothing");

        watches.watch(List.of(target));
        Watches.Link far = opened.getLast();
        assertTrue(far != link, "a new link, a second after the refused one died");
        assertTrue(far.authenticated("i-1"));
        assertFalse(far.pinged(10 + Watches.BEAT_SLACK + 1), "the owner's document showed beat 10");
        assertEquals(2, watches.stats().refused());
    }

    /**
     * A standby whose acknowledgements come back 0.6 watch leases after the ping's send: the owner ends each
     * of its links at half a watch lease, and renews. Its links die young, so it links again after a pause
     * that doubles up to a minute: over ten minutes the owner renews about fifteen times, not once a poll.
     */
    @Test
    void aStandbyWhoseRoundTripIsAboveHalfAWatchLeaseCostsTheOwnerABoundedNumberOfRenewals() {
        List<long[]> due = new ArrayList<>();
        List<Runnable> actions = new ArrayList<>();
        class Net {
            void at(long when, Runnable action) {
                due.add(new long[] {when, actions.size()});
                actions.add(action);
            }
        }
        Net net = new Net();
        Watches slow = new Watches(clock, (t, link) -> {
            Object[] handle = new Object[1];
            net.at(now() + 5_000_000, () -> {
                link.authenticated("i-1");
                handle[0] = watchers.opened(new Watchers.Link() {
                    boolean closed;

                    @Override
                    public void send(Watchers.Ping ping) {
                        long sent = now();
                        net.at(sent + 10_000_000, () -> {
                            if (!closed && link.pinged(ping.beat())) {
                                net.at(sent + P.toNanos() * 6 / 10, () -> watchers.acked(handle[0], ping.seq()));
                            }
                        });
                    }

                    @Override
                    public void close() {
                        closed = true;
                        net.at(now() + 10_000_000, () -> link.ended("end of stream"));
                    }
                });
            });
            return () -> { };
        });
        long end = now() + Duration.ofMinutes(10).toNanos();
        long nextTick = now();
        long nextPoll = now();
        while (now() < end) {
            long next = Math.min(nextTick, nextPoll);
            for (long[] d : due) {
                if (d[0] < next) {
                    next = d[0];
                }
            }
            clock.tick(Duration.ofNanos(Math.max(0, next - now())));
            for (int i = 0; i < due.size(); i++) {
                if (due.get(i)[0] <= now()) {
                    Runnable action = actions.get((int) due.get(i)[1]);
                    due.remove(i--);
                    action.run();
                }
            }
            if (nextTick <= now()) {
                watchers.tick();
                nextTick += P.toNanos() / 10;
            }
            if (nextPoll <= now()) {
                slow.watch(List.of(target));
                nextPoll += Duration.ofSeconds(1).toNanos();
            }
        }
        assertTrue(renewals.get() >= 5 && renewals.get() <= 20, "renewals in ten minutes: " + renewals.get());
    }

    @Test
    void anOwnerNoLongerWatchedGetsAGoodbyeAndNothingIsClaimedByItsLink() {
        List<String> byes = new ArrayList<>();
        Watches saying = new Watches(clock, (t, link) -> {
            opened.add(link);
            return () -> byes.add(t.instance());
        });
        saying.watch(List.of(target));
        Watches.Link link = opened.getLast();
        link.authenticated("i-1");
        link.pinged(10);
        saying.watch(List.of());
        assertEquals(List.of("i-1"), byes);
        assertTrue(saying.unmarked().isEmpty());
        clock.tick(Duration.ofSeconds(2));
        assertTrue(saying.claimable().isEmpty(), "a goodbye gives the link up");
    }
}
