package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claims of one poll: they go on while the read they come from is at most a poll old, and a member plans itself as
 * the registry lists it, as every other node plans it, not as it is right now.
 */
class ClaimRoundRulesTest {

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private final ManualClock clock = protocol.clock();

    /** A node without a membership whose first claim of a poll takes {@code took} on its own clock. */
    private SlotProtocol slowFirstClaim(Duration took) {
        AtomicBoolean first = new AtomicBoolean(true);
        SlotStore slow = new FailingSlotStore(protocol.store()) {
            @Override
            public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
                boolean won = super.claim(seen, owner, ownerBeat);
                if (first.getAndSet(false)) {
                    clock.tick(took);
                }
                return won;
            }
        };
        return protocol.node(A).maxSlots(3).on(slow).build();
    }

    private SlotProtocol member(NodeId id, int maxSlots) {
        return protocol.member(id).maxSlots(maxSlots).build();
    }

    @Test
    void aPollClaimsOnFromAReadExactlyAPollOld() throws Exception {
        protocol.init(3);

        assertEquals(3, slowFirstClaim(TIMING.poll()).poll(), "a poll old is not older than a poll");
    }

    @Test
    void aPollStopsClaimingOnceItsReadIsMoreThanAPollOld() throws Exception {
        protocol.init(3);
        SlotProtocol a = slowFirstClaim(TIMING.poll().plusNanos(1));

        assertEquals(1, a.poll(), "the first claim took longer than a poll: the others wait for a fresh read");
        assertEquals(
                2,
                protocol.store().readAll().stream().filter(SlotView::released).count());
        clock.tick(TIMING.poll());
        assertEquals(2, a.poll());
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
