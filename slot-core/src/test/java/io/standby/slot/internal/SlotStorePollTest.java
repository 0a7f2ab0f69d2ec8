package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the MongoDB protocol.store()'s poll reads of the owner documents, and what a claim at an owner's beat needs, on
 * the embedded wire server: the poll must bring every owner document, whatever the slots' branches match, since a
 * standby waits on those documents instead of on the slots of live owners.
 */
class SlotStorePollTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    /** Before every heartbeat: the poll's late branch matches no slot. */
    private static final Instant NONE_LATE = Instant.EPOCH;

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    @BeforeEach
    void setUp() {}

    private static SlotStore.Ownership owner(NodeId node, String instance, long beat) {
        return new SlotStore.Ownership(node, instance, LEASE, null, beat);
    }

    @Test
    void aPollReadsEveryOwnerDocumentWithItsBeatThoughItReadsNoSlotOfALiveOwner() {
        protocol.init(2);
        SlotStore.Ownership a = owner(A, "i-a", 7);
        assertTrue(protocol.store().claim(protocol.store().read("slot-0").orElseThrow(), a));
        assertTrue(protocol.store().claim(protocol.store().read("slot-1").orElseThrow(), a));
        assertEquals(
                2,
                protocol.store()
                        .renewAll(Map.of("slot-0", 1L, "slot-1", 1L), a.withBeat(8))
                        .renewed()
                        .size());
        protocol.store().beat(owner(new NodeId("10.0.0.9", 7700), "i-z", 3));

        SlotStore.Poll poll = protocol.store().poll(B, NONE_LATE, FreeShare.ALL);

        assertEquals(List.of(), poll.slots(), "both slots are a live owner's, neither free, late, nor B's");
        assertEquals(
                Map.of(
                        OwnerDocRules.ownerId(A, "i-a"),
                        8L,
                        OwnerDocRules.ownerId(new NodeId("10.0.0.9", 7700), "i-z"),
                        3L),
                poll.beats(),
                "every owner document, at its last beat");
        assertEquals(
                java.util.Set.of(A, new NodeId("10.0.0.9", 7700)),
                poll.owners().stream().map(SlotStore.OwnerBeat::node).collect(java.util.stream.Collectors.toSet()));
        assertTrue(poll.serverNow() != null, "the owner documents carry the server's time when no slot matches");
    }

    @Test
    void aPollReadsTheOwnerDocumentsAlongsideTheSlotsThatConcernIt() {
        protocol.init(3);
        assertTrue(protocol.store().claim(protocol.store().read("slot-0").orElseThrow(), owner(A, "i-a", 1)));
        assertTrue(protocol.store().claim(protocol.store().read("slot-1").orElseThrow(), owner(B, "i-b", 1)));
        protocol.store().beat(owner(A, "i-a", 1));

        SlotStore.Poll poll = protocol.store().poll(B, NONE_LATE, FreeShare.ALL);

        assertEquals(
                List.of("slot-1", "slot-2"),
                poll.slots().stream().map(SlotView::id).toList(),
                "B's own slot and the free one, not A's live one");
        assertEquals(Map.of(OwnerDocRules.ownerId(A, "i-a"), 1L), poll.beats());
    }

    @Test
    void aClaimAtAnOwnersBeatNeedsAnOwnerInTheVersionSeenAndWritesNothingWithout() {
        protocol.init(1);
        SlotView free = protocol.store().read("slot-0").orElseThrow();
        assertNull(free.owner());

        assertFalse(
                protocol.store().claim(free, owner(B, "i-b", 1), OptionalLong.of(0)),
                "a free slot has no owner whose document could have been watched");
        SlotView after = protocol.store().read("slot-0").orElseThrow();
        assertNull(after.owner(), "nothing written");
        assertEquals(0, after.epoch());

        SlotView noInstance = SlotView.of(free.id(), A, null, free.time(), free.lease(), free.epoch(), free.age());
        assertFalse(protocol.store().claim(noInstance, owner(B, "i-b", 1), OptionalLong.of(0)));
        assertEquals(0, protocol.store().read("slot-0").orElseThrow().epoch());
        assertEquals(1, protocol.slots().countDocuments(), "no owner document written by a refused claim either");
    }
}
