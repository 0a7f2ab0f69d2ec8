package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.ClaimCounts;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How a node claims, and what it reports of each claim: won, lost to another node, or failed with no answer; a claim
 * whose answer was lost is taken back at the next poll; a take-over reports how long the slot went unserved. Driven
 * with a hand-moved clock against the real wire server; the server's view of a heartbeat's age is set by writing the
 * slot document.
 */
class SlotProtocolClaimTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();
    private final List<Duration> sleeps = protocol.sleeps();

    private SlotProtocol node(SlotStore on, NodeId id, int maxSlots, EveryEvent events) {
        return protocol.node(id).on(on).maxSlots(maxSlots).listener(events).build();
    }

    /** A, on {@code failing}, over one new slot: its first poll claims nothing. */
    private SlotProtocol firstPollOfOneSlotClaimsNothing(FailingSlotStore failing, EveryEvent events)
            throws InterruptedException {
        protocol.init(1);
        SlotProtocol a = node(failing, A, 1, events);
        assertEquals(0, a.poll());
        return a;
    }

    @Test
    void aClaimWithNoAnswerCountsAsFailedAndTheSlotIsClaimedAtTheNextPoll() throws Exception {
        FailingSlotStore failing = new FailingSlotStore(protocol.store()).fail(FailingSlotStore.Call.CLAIM);
        EveryEvent events = new EveryEvent();
        SlotProtocol a = firstPollOfOneSlotClaimsNothing(failing, events);
        assertEquals(new ClaimCounts(0, 0, 1), a.claims());
        assertEquals(List.of("claimed slot-0 FAILED"), events.lines);
        assertEquals(List.of(), a.leases());

        failing.heal();
        assertEquals(1, a.poll());
        assertEquals(new ClaimCounts(1, 0, 1), a.claims());
        assertEquals(List.of("claimed slot-0 FAILED", "claimed slot-0 WON", "acquired slot-0@1"), events.lines);
    }

    @Test
    void aPollStopsClaimingOnceItsReadIsAPollOldAndTheNextPollReadsAgain() throws Exception {
        int perWrite = ClaimRound.CLAIMS_PER_WRITE;
        protocol.init(perWrite * 5);
        // Every write of claims takes 300 ms, and each claim loses: others took the slots since this node's read.
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        SlotStore slowAndLate = new FailingSlotStore(protocol.store()) {
            @Override
            public java.util.Set<String> claimAll(List<Claim> claims, Ownership owner) {
                writes.incrementAndGet();
                clock.tick(Duration.ofMillis(300));
                return java.util.Set.of();
            }
        };
        SlotProtocol a = node(slowAndLate, A, perWrite * 5, new EveryEvent());

        assertEquals(0, a.poll());
        assertEquals(
                4,
                writes.get(),
                "writes sent at 0, 300, 600 and 900 ms after the read; at 1,200 ms the read is over a poll old");
        assertEquals(new ClaimCounts(0, 4L * perWrite, 0), a.claims());
        assertEquals(0, a.poll());
        assertEquals(8, writes.get(), "the next poll reads again and tries again");
    }

    @Test
    void aClaimThatLostTheRaceCountsAsLostAndAcquiresNothing() throws Exception {
        protocol.init(1);
        // Another node claims between this node's read and its claim: the version it read is gone.
        SlotStore racing = new FailingSlotStore(protocol.store()) {
            @Override
            public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
                protocol.store().claim(seen, new Ownership(B, "b", TIMING.lease()));
                return super.claim(seen, owner, ownerBeat);
            }
        };
        EveryEvent events = new EveryEvent();
        SlotProtocol a = node(racing, A, 1, events);

        assertEquals(0, a.poll());

        assertEquals(new ClaimCounts(0, 1, 0), a.claims());
        assertEquals(List.of("claimed slot-0 CONFLICT"), events.lines);
        assertEquals(List.of(), a.leases());
        assertEquals(B, protocol.slot("slot-0").owner());
    }

    @Test
    void aTakeOverReportsTheFormerOwnerAndHowLongTheSlotWentUnserved() throws Exception {
        protocol.init(1);
        EveryEvent eventsOfA = new EveryEvent();
        EveryEvent eventsOfB = new EveryEvent();
        SlotProtocol a = node(protocol.store(), A, 1, eventsOfA);
        SlotProtocol b = node(protocol.store(), B, 1, eventsOfB);
        assertEquals(1, a.poll());
        protocol.heartbeatAgo("slot-0", Duration.ofSeconds(60));
        assertEquals(0, b.poll());
        clock.tick(TIMING.lease());

        assertEquals(1, b.poll());

        assertEquals(
                List.of(
                        "claimed slot-0 WON",
                        "acquired slot-0@2",
                        "tookOver slot-0@2 from " + A + " EXPIRED: lease 5s expired"),
                eventsOfB.lines);
        Duration unowned = eventsOfB.unowned.getFirst();
        // The server's age at b's read (about 60 s), plus what b's clock says passed since that read (nothing here).
        assertTrue(
                unowned.compareTo(Duration.ofSeconds(59)) >= 0 && unowned.compareTo(Duration.ofSeconds(120)) < 0,
                "unserved since the last heartbeat: " + unowned);
        assertEquals(
                List.of("claimed slot-0 WON", "acquired slot-0@1"), eventsOfA.lines, "a free slot is no take-over");
    }

    @Test
    void aNodeWithoutRoomTakesNothingBackAndReleasesWhatItCannotHold() throws Exception {
        protocol.init(3);
        // A restart that bound its address finds two slots of its earlier process; it has room for one, and
        // one free slot is there too.
        NodeConfig config = new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId(), true);
        SlotStore.Ownership earlier = new SlotStore.Ownership(A, "earlier@" + config.host(), TIMING.lease());
        assertTrue(protocol.store().claim(protocol.slot("slot-0"), earlier));
        assertTrue(protocol.store().claim(protocol.slot("slot-1"), earlier));
        EveryEvent events = new EveryEvent();
        SlotProtocol a = new SlotProtocol(
                ProtocolSetup.of(protocol.store(), config, clock, events).withSleeper(sleeps::add));

        assertEquals(1, a.poll());

        assertEquals(
                List.of("slot-0"),
                a.leases().stream().map(io.standby.slot.Lease::slotId).toList());
        assertEquals(config.instance(), protocol.slot("slot-0").instance());
        assertTrue(protocol.slot("slot-1").released(), "released for a standby, not held");
        assertTrue(protocol.slot("slot-2").released(), "the free slot stays free: no room");
        assertEquals(0, protocol.slot("slot-2").epoch(), "never claimed");
        assertEquals(List.of("acquired slot-0@2"), events.lines);
    }

    @Test
    void aTakeBackThatFailsIsTriedAgainAtTheNextPoll() throws Exception {
        protocol.init(1);
        NodeConfig config = new NodeConfig(A, 1, TIMING, NodeConfig.newInstanceId(), true);
        assertTrue(protocol.store()
                .claim(
                        protocol.slot("slot-0"),
                        new SlotStore.Ownership(A, "earlier@" + config.host(), TIMING.lease())));
        FailingSlotStore failing = new FailingSlotStore(protocol.store()).fail(FailingSlotStore.Call.RECLAIM);
        SlotProtocol a = new SlotProtocol(
                ProtocolSetup.of(failing, config, clock, new EveryEvent()).withSleeper(sleeps::add));

        assertEquals(0, a.poll());
        assertEquals("earlier@" + config.host(), protocol.slot("slot-0").instance());

        failing.heal();
        assertEquals(1, a.poll());
        assertEquals(config.instance(), protocol.slot("slot-0").instance());
        assertEquals(
                List.of("slot-0"),
                a.leases().stream().map(io.standby.slot.Lease::slotId).toList());
    }

    @Test
    void aStandbyThatCannotReadTheSlotsClaimsNothingAndHasNotReadYet() throws Exception {
        FailingSlotStore failing = new FailingSlotStore(protocol.store()).fail(FailingSlotStore.Call.READ_ALL);
        EveryEvent events = new EveryEvent();
        SlotProtocol a = firstPollOfOneSlotClaimsNothing(failing, events);
        assertTrue(a.lastRead().isEmpty(), "never read: not ready");
        assertEquals(List.of(), events.lines);
        assertTrue(protocol.slot("slot-0").released());

        failing.heal();
        clock.tick(Duration.ofSeconds(1));
        assertEquals(1, a.poll());
        assertEquals(clock.nanoTime(), a.lastRead().orElseThrow(), "read at this moment of the node's clock");
        long read = clock.nanoTime();

        failing.fail(FailingSlotStore.Call.READ_ALL);
        clock.tick(Duration.ofSeconds(1));
        a.poll();
        assertEquals(read, a.lastRead().orElseThrow(), "a failed read leaves the last good one");
    }

    /**
     * The claims of a node share one write of its owner document while it is less than a quarter heartbeat old
     * ({@code OwnerBeats.claimStamp}), and each claimed slot carries that document's beat, so that a standby that
     * watches the document may take them too.
     */
    @Test
    void claimsWithinAQuarterHeartbeatShareOneOwnerDocumentWriteAndCarryItsBeat() throws Exception {
        protocol.init(3);
        FailingSlotStore counting = new FailingSlotStore(protocol.store());
        SlotProtocol a = protocol.node(A).maxSlots(5).on(counting).build();
        assertEquals(3, a.poll());
        assertEquals(
                1, counting.calls(FailingSlotStore.Call.BEAT), "one owner-document write for the poll's three claims");
        String doc = OwnerDocRules.ownerId(A, a.config().instance());
        long first = protocol.store()
                .poll(B, java.time.Instant.EPOCH, FreeShare.ALL)
                .beats()
                .get(doc);
        for (String slot : List.of("slot-0", "slot-1", "slot-2")) {
            assertEquals(first, protocol.slot(slot).beat(), slot + " carries the document's beat");
        }

        Duration quarter = TIMING.heartbeat().dividedBy(4);
        clock.tick(quarter.minusMillis(1));
        protocol.init(4);
        assertEquals(1, a.poll());
        assertEquals(1, counting.calls(FailingSlotStore.Call.BEAT), "still within a quarter heartbeat of the write");
        assertEquals(first, protocol.slot("slot-3").beat());

        clock.tick(Duration.ofMillis(1));
        protocol.init(5);
        assertEquals(1, a.poll());
        assertEquals(
                2,
                counting.calls(FailingSlotStore.Call.BEAT),
                "a quarter heartbeat after it, the document is written again");
        long second = protocol.store()
                .poll(B, java.time.Instant.EPOCH, FreeShare.ALL)
                .beats()
                .get(doc);
        assertTrue(second > first, "with a new beat");
        assertEquals(second, protocol.slot("slot-4").beat());
    }
}
