package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claims of one poll: they go in writes of a bounded number, on while the read they come from is at most a poll
 * old; and a member plans itself as the registry lists it, as every other node plans it, not as it is right now.
 */
class ClaimRoundRulesTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    /** More than a write of claims holds: a poll that may claim them all sends two. */
    private static final int SLOTS = ClaimRound.CLAIMS_PER_WRITE + 2;

    /**
     * A node without a membership whose first write of claims takes {@code took} on its own clock; a poll sends its
     * claims {@link ClaimRound#CLAIMS_PER_WRITE} to a write.
     */
    private SlotProtocol slowFirstClaims(Duration took) {
        AtomicBoolean first = new AtomicBoolean(true);
        SlotStore slow = new FailingSlotStore(protocol.store()) {
            @Override
            public Set<String> claimAll(List<Claim> claims, Ownership owner) {
                Set<String> won = super.claimAll(claims, owner);
                if (first.getAndSet(false)) {
                    clock.tick(took);
                }
                return won;
            }
        };
        return protocol.node(A).maxSlots(SLOTS).on(slow).build();
    }

    private SlotProtocol member(NodeId id, int maxSlots) {
        return protocol.member(id).maxSlots(maxSlots).build();
    }

    @Test
    void aPollClaimsOnFromAReadExactlyAPollOld() throws Exception {
        protocol.init(SLOTS);

        assertEquals(SLOTS, slowFirstClaims(TIMING.poll()).poll(), "a poll old is not older than a poll");
    }

    @Test
    void aPollStopsClaimingOnceItsReadIsMoreThanAPollOld() throws Exception {
        protocol.init(SLOTS);
        SlotProtocol a = slowFirstClaims(TIMING.poll().plusNanos(1));

        assertEquals(
                ClaimRound.CLAIMS_PER_WRITE,
                a.poll(),
                "the first write of claims took longer than a poll: the others wait for a fresh read");
        assertEquals(
                SLOTS - ClaimRound.CLAIMS_PER_WRITE,
                protocol.store().readAll().stream().filter(SlotView::released).count());
        clock.tick(TIMING.poll());
        assertEquals(SLOTS - ClaimRound.CLAIMS_PER_WRITE, a.poll());
    }

    /** A node may claim each of them: at most {@link ClaimRound#CLAIMS_PER_WRITE} go in one write. */
    @Test
    void aPollSendsItsClaimsInWritesOfAtMostTheBoundAndNeverMoreThanItsRoom() throws Exception {
        protocol.init(SLOTS);
        List<Integer> writes = new ArrayList<>();
        SlotStore counting = new FailingSlotStore(protocol.store()) {
            @Override
            public Set<String> claimAll(List<Claim> claims, Ownership owner) {
                writes.add(claims.size());
                return super.claimAll(claims, owner);
            }
        };
        int room = ClaimRound.CLAIMS_PER_WRITE + 1;
        SlotProtocol a = protocol.node(A).maxSlots(room).on(counting).build();

        assertEquals(room, a.poll());
        assertEquals(
                List.of(ClaimRound.CLAIMS_PER_WRITE, 1), writes, "the second write: the room left, of two claimable");
        assertEquals(room, a.leases().size());
        assertEquals(
                1,
                protocol.store().readAll().stream().filter(SlotView::released).count());
    }

    /** Another node's planned slots, which every node with room tries after the head start, go one to a write. */
    @Test
    void aMemberSendsItsPlannedClaimsTogetherAndTheOthersOneToAWriteAfterTheHeadStart() throws Exception {
        List<Integer> writes = new ArrayList<>();
        SlotStore counting = new FailingSlotStore(protocol.store()) {
            @Override
            public Set<String> claimAll(List<Claim> claims, Ownership owner) {
                writes.add(claims.size());
                return super.claimAll(claims, owner);
            }
        };
        SlotProtocol a = protocol.member(A).maxSlots(10).on(counting).build();
        SlotProtocol b = member(B, 10);
        a.poll();
        b.poll();
        protocol.init(8);

        clock.tick(TIMING.poll());
        int mine = a.poll();
        assertEquals(List.of(mine), writes, "A's planned slots, in one write");
        assertTrue(mine > 0 && mine < 8, "the plan shares the slots between A and B: " + mine);

        clock.tick(TIMING.poll());
        assertEquals(8 - mine, a.poll(), "B never claimed: after the head start A takes B's");
        assertEquals(8 - mine, writes.size() - 1, "one write each: " + writes);
        assertTrue(writes.subList(1, writes.size()).stream().allMatch(size -> size == 1), writes.toString());
    }

    @Test
    void aMemberPlansItselfAsTheRegistryListsItNotAsItIsNow() throws Exception {
        SlotProtocol a = member(A, 2);
        SlotProtocol b = member(B, 1);
        a.poll();
        b.poll();
        // A's registry document says it is full, as a document a write behind would: every node plans A so,
        // and so does A itself.
        protocol.db()
                .database()
                .getCollection(MongoNodeRegistry.COLLECTION)
                .updateOne(Filters.eq("port", A.port()), Updates.set("held", 2));
        protocol.store().create("slot-0");
        protocol.store().create("slot-1");

        clock.tick(TIMING.poll());
        assertEquals(0, a.poll(), "the plan gives B one slot and A none: A waits a head start");
        assertNull(protocol.slot("slot-0").owner());
        assertNull(protocol.slot("slot-1").owner());

        clock.tick(TIMING.poll());
        assertEquals(2, a.poll(), "B never came: after the head start A takes both");
    }
}
