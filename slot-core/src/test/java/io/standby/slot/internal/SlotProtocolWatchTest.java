package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Watch links through the whole protocol, on the embedded server and one hand clock, the link itself carried in memory
 * (the TCP transport has its own test): a standby takes a dead owner's slot 1.1 watch leases after the last ping, long
 * before the late mark; a live owner whose link broke outruns the claim with one renewal and keeps its robots running;
 * one whose renewal cannot land pauses at 0.9 watch leases, before the standby's claim, which then wins.
 */
class SlotProtocolWatchTest {

    /** A 20 s lease, a late mark of 6 s, and a watch lease of 1 s. */
    private static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofSeconds(3), Duration.ofSeconds(20), Duration.ofSeconds(1));

    private static final Duration WATCH = Duration.ofSeconds(1);

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture(TIMING);

    private final ManualClock clock = protocol.clock();
    private FailingSlotStore ownerStore;
    private final EveryEvent ownerEvents = new EveryEvent();
    private final EveryEvent standbyEvents = new EveryEvent();
    private SlotProtocol owner;
    private OwnerLinks ownerWatchers;
    private SlotProtocol standby;
    /** The standby's end of the link, and the owner's handle of it. */
    private StandbyLink standbyLink;

    private Object ownerHandle;
    /** Whether the link still carries pings and acknowledgements. */
    private boolean linkUp;
    /** Whether the standby's marks of a link's end fail, as a write to an unreachable database does. */
    private volatile boolean marksFail;
    /** What happens between the standby's read of a dead link's slots and its claim of one. */
    private volatile Runnable beforeLinkClaim = () -> {};

    private StandbyLinks standbyLinks;

    @BeforeEach
    void setUp() throws InterruptedException {
        protocol.init(1);
        ownerStore = new FailingSlotStore(protocol.store());
        ownerWatchers = new OwnerLinks(clock, WATCH, () -> owner.renewAll());
        ownerWatchers.port(7101);
        NodeConfig ownerConfig = new NodeConfig(A, 1, TIMING, "owner-1");
        owner = new SlotProtocol(ProtocolSetup.of(ownerStore, ownerConfig, clock, ownerEvents)
                .withSleeper(d -> {})
                .withFastFailover(new GoneOwners(
                        (node, timeout) -> OwnerProbe.Result.ERROR,
                        d -> {},
                        clock,
                        Duration.ofMillis(50),
                        GoneOwners.GAP))
                .withWatchLinks(ownerWatchers, new StandbyLinks(clock, StandbyLinks.NONE)));
        StandbyLinks.Connector loopback = (target, link) -> {
            assertEquals(
                    List.of(A, "owner-1", 7101, WATCH),
                    List.of(target.node(), target.instance(), target.port(), target.watchLease()),
                    "the standby finds the owner's port and watch lease in its document");
            standbyLink = link;
            linkUp = true;
            link.authenticated("owner-1");
            ownerHandle = ownerWatchers.opened(new OwnerLinks.Link() {
                @Override
                public void send(OwnerLinks.Ping ping) {
                    // The first ping goes out inside opened(), before its handle is known: its acknowledgement is lost.
                    if (linkUp && link.pinged(ping.beat()) && ownerHandle != null) {
                        ownerWatchers.acked(ownerHandle, ping.seq());
                    }
                }

                @Override
                public void close() {
                    linkUp = false;
                }
            });
            return () -> ownerWatchers.goodbye(ownerHandle);
        };
        SlotStore standbyStore = new FailingSlotStore(protocol.store()) {
            @Override
            public long markLinkEnd(NodeId node, String instance) {
                if (marksFail) {
                    throw new IllegalStateException("connection lost (mark)");
                }
                return super.markLinkEnd(node, instance);
            }

            @Override
            public boolean claimFromWatched(SlotView seen, Ownership owner, long maxBeat, Duration wait) {
                beforeLinkClaim.run();
                return super.claimFromWatched(seen, owner, maxBeat, wait);
            }
        };
        standbyLinks = new StandbyLinks(clock, loopback);
        standby = new SlotProtocol(
                ProtocolSetup.of(standbyStore, new NodeConfig(B, 2, TIMING, "standby-1"), clock, standbyEvents)
                        .withSleeper(d -> {})
                        .withWatchLinks(OwnerLinks.OFF, standbyLinks));

        assertEquals(1, owner.poll());
        owner.renewAll();
        assertEquals(0, standby.poll());
        assertTrue(linkUp, "the standby opened a link to the owner it read");
        // A few pings and renewals, as time goes by.
        for (int i = 0; i < 10; i++) {
            clock.tick(Duration.ofMillis(100));
            ownerWatchers.tick();
        }
        owner.renewAll();
        ownerWatchers.tick();
    }

    /**
     * The standby's first step after the link died: it marks the owner's slots with the server's time. The mark is then
     * set 10 s into the past, as the server's clock would age it, so that only the standby's own clock (the hand clock)
     * decides.
     */
    private void markedAndAged() throws InterruptedException {
        assertEquals(0, standby.takeWatched());
        assertTrue(slot().linkEnd() != null, "marked at once");
        protocol.db()
                .database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("linkEnd", Date.from(Instant.now().minusSeconds(10))));
    }

    /**
     * A connection reset that both ends of the link see; then the standby's mark, aged as in {@link #markedAndAged}.
     */
    private void resetSeenByBothEnds() throws InterruptedException {
        standbyLink.ended("connection reset");
        ownerWatchers.ended(ownerHandle, "connection reset");
        markedAndAged();
    }

    private Lease ownerLease() {
        return owner.leases().getFirst();
    }

    private SlotView slot() {
        return protocol.store().read("slot-0").orElseThrow();
    }

    @Test
    void aDeadOwnersSlotIsTakenOnePointOneWatchLeasesAfterItsLastPingLongBeforeTheLateMark()
            throws InterruptedException {
        long epoch = slot().epoch();
        // kill -9: nothing more comes from the owner, and the standby sees end of stream.
        linkUp = false;
        standbyLink.ended("end of stream");
        markedAndAged();
        clock.tick(Duration.ofMillis(1099));
        assertEquals(0, standby.takeWatched(), "1.1 watch leases after the last ping, less 1 ms");
        assertEquals(A, slot().owner());
        clock.tick(Duration.ofMillis(1));
        assertEquals(1, standby.takeWatched());
        SlotView taken = slot();
        assertEquals(B, taken.owner());
        assertEquals(epoch + 1, taken.epoch());
        assertTrue(
                taken.age().compareTo(TIMING.late()) < 0, "taken with the owner's heartbeat " + taken.age() + " old");
        assertEquals(
                List.of("tookOver slot-0@" + (epoch + 1) + " from " + A + " LINK: its watch link end of stream"),
                standbyEvents.starting("tookOver"));
    }

    @Test
    void aSlotTheOwnerTookAfterTheStandbysMarkIsMarkedInTurnAndTakenToo() throws InterruptedException {
        protocol.init(2);
        long beat = slot().beat();
        linkUp = false;
        standbyLink.ended("end of stream");
        markedAndAged();
        // A claim of the owner's, at a beat it had sent on the link, lands after the standby's mark: a take
        // clears a mark, so slot-1 carries none.
        SlotView free = protocol.store().read("slot-1").orElseThrow();
        assertTrue(protocol.store()
                .claim(free, new SlotStore.Ownership(A, "owner-1", TIMING.lease(), TIMING.late(), beat)));
        assertEquals(null, protocol.store().read("slot-1").orElseThrow().linkEnd());
        clock.tick(Duration.ofMillis(1100));
        assertEquals(1, standby.takeWatched(), "slot-0, whose mark aged; slot-1 has none yet");
        assertTrue(protocol.store().read("slot-1").orElseThrow().linkEnd() != null, "slot-1 is marked now");
        assertEquals(A, protocol.store().read("slot-1").orElseThrow().owner(), "and waits for its own mark to age");
        protocol.db()
                .database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-1"),
                        Updates.set("linkEnd", Date.from(Instant.now().minusSeconds(10))));
        assertEquals(1, standby.takeWatched());
        assertEquals(
                B,
                protocol.store().read("slot-1").orElseThrow().owner(),
                "taken by the same dead link, not left to the lease");
    }

    @Test
    void aLiveOwnerWhoseLinkBrokeOutrunsTheClaimWithOneRenewalAndKeepsItsRobotsRunning() throws InterruptedException {
        long epoch = slot().epoch();
        // A reset that both ends see: the owner renews at once, with a beat it never sent on the link.
        resetSeenByBothEnds();
        clock.tick(Duration.ofMillis(1100));
        owner.checkFences();
        assertTrue(ownerLease().isValid(), "a higher beat landed: the link blocks nothing");
        assertEquals(List.of(), ownerEvents.starting("paused"));
        assertEquals(0, standby.takeWatched(), "the claim at the link's beats matches nothing");
        assertEquals(A, slot().owner());
        assertEquals(epoch, slot().epoch());
        assertTrue(ownerLease().isValid());
    }

    @Test
    void anOwnerWhoseRenewalCannotLandPausesBeforeTheStandbysClaimWhichWins() throws InterruptedException {
        long epoch = slot().epoch();
        ownerStore.fail(FailingSlotStore.Call.RENEW);
        resetSeenByBothEnds();
        clock.tick(Duration.ofMillis(850));
        owner.checkFences();
        assertTrue(ownerLease().isValid(), "before the link's deadline");
        clock.tick(Duration.ofMillis(100));
        assertFalse(ownerLease().isValid(), "0.9 watch leases after the last acknowledged ping");
        owner.checkFences();
        assertEquals(List.of("paused slot-0@" + epoch), ownerEvents.starting("paused"));
        clock.tick(Duration.ofMillis(150));
        assertEquals(1, standby.takeWatched());
        assertEquals(B, slot().owner());
        ownerStore.heal();
        owner.renewAll();
        assertEquals(List.of("lost slot-0@" + epoch + " TAKEN"), ownerEvents.starting("lost"));
    }

    /**
     * The owner's renewal lands between the standby's read of the slot and its claim: the claim matches nothing, and no
     * takeover is counted. The next tick reads the higher beat and lets the link go.
     */
    @Test
    void aLinkClaimThatLosesToARenewalCountsNoTakeoverAndTheNextTickLetsTheLinkGo() throws InterruptedException {
        long epoch = slot().epoch();
        ownerStore.fail(FailingSlotStore.Call.RENEW);
        resetSeenByBothEnds();
        clock.tick(Duration.ofMillis(1100));
        beforeLinkClaim = () -> {
            ownerStore.heal();
            owner.renewAll();
        };
        assertEquals(0, standby.takeWatched(), "the claim lost to the renewal");
        assertEquals(A, slot().owner());
        assertEquals(epoch, slot().epoch());
        assertTrue(ownerLease().isValid(), "the owner's renewal, with a beat above the link's, landed");
        assertEquals(0, standbyLinks.stats().takeovers.get(), "no takeover counted");
        assertEquals(1, standbyLinks.claimable().size(), "the link waits for the next tick");
        beforeLinkClaim = () -> {};
        assertEquals(0, standby.takeWatched());
        assertEquals(List.of(), standbyLinks.claimable(), "the higher beat is read: nothing left to take by the link");
        assertEquals(A, slot().owner());
    }

    @Test
    void aPausedOwnerResumesWhenAHigherBeatLandsAndTheStandbyThenClaimsNothing() throws InterruptedException {
        long epoch = slot().epoch();
        ownerStore.fail(FailingSlotStore.Call.RENEW);
        resetSeenByBothEnds();
        clock.tick(Duration.ofMillis(950));
        owner.checkFences();
        assertFalse(ownerLease().isValid());
        ownerStore.heal();
        owner.renewAll();
        assertTrue(ownerLease().isValid(), "a renewal with a beat above the link's was acknowledged");
        assertEquals(List.of("resumed slot-0@" + epoch), ownerEvents.starting("resumed"));
        clock.tick(Duration.ofMillis(200));
        assertEquals(0, standby.takeWatched());
        assertEquals(A, slot().owner());
    }

    @Test
    void aClaimWaitsForTheServersMarkToAgeEvenWhenTheStandbysOwnClockSaysGo() throws InterruptedException {
        linkUp = false;
        standbyLink.ended("end of stream");
        assertEquals(0, standby.takeWatched());
        // The standby's clock runs ten seconds ahead; the server's mark is fresh.
        clock.tick(Duration.ofSeconds(10));
        assertEquals(0, standby.takeWatched(), "a clock that runs fast cannot end the wait by itself");
        assertEquals(A, slot().owner());
    }

    @Test
    void aStandbyWhoseOwnMarkFailedNeverClaimsOnAnOlderMark() throws InterruptedException {
        // A mark left by an earlier link's death, long aged by the server's clock.
        protocol.db()
                .database()
                .getCollection("slots")
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("linkEnd", Date.from(Instant.now().minusSeconds(60))));
        marksFail = true;
        linkUp = false;
        standbyLink.ended("end of stream");
        assertEquals(0, standby.takeWatched());
        clock.tick(Duration.ofMillis(1100));
        assertEquals(
                0,
                standby.takeWatched(),
                "only its own mark, acknowledged, dates the link's end by the server's clock");
        assertEquals(A, slot().owner());
        marksFail = false;
        assertEquals(0, standby.takeWatched(), "its own mark now, which has yet to age");
        assertEquals(A, slot().owner());
    }

    /**
     * An election, as an owner that a live link covers sees it: twelve seconds in which no renewal is answered, twice
     * the late mark. It wrote no mark while covered, so no standby may take it over early, and it pauses nothing before
     * its deadline; the slot stays at its epoch. Once the link ends, its next write carries the mark again.
     */
    @Test
    void anOwnerThatALiveLinkCoversWritesNoLateMarkAndRidesThroughADatabaseOutageLongerThanTheMark() {
        long epoch = slot().epoch();
        assertNull(slot().lateMark(), "covered by the link: its renewal wrote no mark");
        assertEquals(TIMING.late(), owner.config().timing().late(), "the owner has fast failover on");

        ownerStore.fail(FailingSlotStore.Call.RENEW);
        for (int tick = 1; tick <= 120; tick++) {
            clock.tick(Duration.ofMillis(100));
            ownerWatchers.tick();
            if (tick % 30 == 0) {
                owner.renewAll();
            }
            owner.checkFences();
        }
        assertTrue(ownerLease().isValid(), "12 s without an answer: past the late mark, before the deadline");
        assertEquals(List.of(), ownerEvents.starting("paused"));

        ownerStore.heal();
        owner.renewAll();
        assertEquals(A, slot().owner());
        assertEquals(epoch, slot().epoch(), "no slot moved");
        assertNull(slot().lateMark());

        linkUp = false;
        ownerWatchers.ended(ownerHandle, "connection reset");
        assertEquals(TIMING.late(), slot().lateMark(), "the renewal that outruns the link's claim carries the mark");
        assertTrue(ownerLease().isValid());
    }

    /**
     * An owner cut off from the database alone: its document stops being raised and ages on the server, while its link
     * to the standby goes on. The standby keeps the link (it proves the owner runs, which a stale document cannot), so
     * the owner stays covered and writes no mark; otherwise it would pause at once, a few seconds into the outage.
     */
    @Test
    void aStandbyKeepsItsLinkToAnOwnerWhoseDocumentWentStaleWhileTheLinkLives() throws InterruptedException {
        protocol.db()
                .database()
                .getCollection("owners")
                .updateMany(
                        new org.bson.Document(),
                        Updates.set("at", Date.from(Instant.now().minusSeconds(10))));
        assertEquals(0, standby.poll());
        assertTrue(linkUp, "the standby kept its link to the owner");
        clock.tick(Duration.ofMillis(100));
        ownerWatchers.tick();
        owner.renewAll();
        assertNull(slot().lateMark(), "still covered: no mark");
    }

    /**
     * Once no link covers the owner, its renewals carry the mark again. One that lands but whose answer is lost leaves
     * the slot showing the mark while the owner's last acknowledged write carried none: the owner pauses at the late
     * point all the same, counted from its last acknowledged send, before a standby without a link could judge it late.
     */
    @Test
    void anOwnerNoLongerCoveredPausesAtTheLatePointWhenARenewalWithTheMarkLandsButItsAnswerIsLost() {
        long epoch = slot().epoch();
        assertNull(slot().lateMark());
        standby.leave();
        assertFalse(linkUp, "no link covers the owner any more");

        ownerStore.fail(FailingSlotStore.Call.RENEW_ANSWER);
        owner.renewAll();
        assertEquals(TIMING.late(), slot().lateMark(), "the renewal landed, with the mark");

        clock.tick(TIMING.late().minus(TIMING.lateMargin()).minusMillis(1));
        owner.checkFences();
        assertTrue(ownerLease().isValid(), "before the late point of the last acknowledged send");
        clock.tick(Duration.ofMillis(1));
        owner.checkFences();
        assertFalse(ownerLease().isValid(), "the slot shows the mark: a standby may judge it late from here on");
        assertEquals(List.of("paused slot-0@" + epoch), ownerEvents.starting("paused"));
    }

    @Test
    void aStandbyThatStopsSaysGoodbyeAndTheOwnerNeitherRenewsNorPauses() throws InterruptedException {
        ownerStore.fail(FailingSlotStore.Call.RENEW);
        standby.leave();
        assertFalse(linkUp, "the owner closed its end");
        clock.tick(Duration.ofSeconds(2));
        owner.checkFences();
        assertTrue(ownerLease().isValid(), "a link given up blocks nothing");
        assertEquals(List.of(), ownerEvents.starting("paused"));
    }
}
