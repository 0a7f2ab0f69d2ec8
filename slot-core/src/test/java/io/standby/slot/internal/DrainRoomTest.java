package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where a draining node's slots can go: the free places of the other live nodes, less the slots that already wait for
 * one. A pure function of the registry's members and the slots read after it.
 */
class DrainRoomTest {

    private static final NodeId DRAINING = new NodeId("10.0.0.1", 7700);
    private static final NodeId OTHER = new NodeId("10.0.0.2", 7700);
    private static final Duration LEASE = Duration.ofSeconds(5);

    private static SlotView free(String id) {
        return SlotView.of(id, null, null, Instant.EPOCH, Duration.ZERO, 0, Duration.ofDays(1));
    }

    private static SlotView held(String id, NodeId owner) {
        return SlotView.of(id, owner, "i", Instant.parse("2026-11-26T10:00:00Z"), LEASE, 1, Duration.ofSeconds(1));
    }

    @Test
    void theDrainingNodeIsNoPlaceForItsOwnSlotsEvenWhenTheRegistryListsItLiveWithRoom() {
        List<ClaimPlan.Member> live =
                List.of(new ClaimPlan.Member(DRAINING, 0, 10, 1), new ClaimPlan.Member(OTHER, 0, 1, 1));

        DrainRoom room = DrainRoom.of(DRAINING, live, List.of(held("slot-0", DRAINING), held("slot-1", OTHER)));

        assertEquals(
                new DrainRoom(0, 0), room, "the other node is full; the draining node's own nine places do not count");
        assertEquals(0, room.room());
    }

    @Test
    void theSlotsAlreadyWaitingTakeThePlacesFirst() {
        List<ClaimPlan.Member> live = List.of(new ClaimPlan.Member(OTHER, 0, 4, 1));

        DrainRoom room = DrainRoom.of(DRAINING, live, List.of(held("slot-0", DRAINING), free("slot-1")));

        assertEquals(new DrainRoom(3, 1), room);
        assertEquals(2, room.room(), "three free places, one of them wanted by a free slot already");
        assertEquals(0, new DrainRoom(1, 3).room(), "more slots waiting than places: no room, never less");
    }

    @Test
    void aNodeListedTwiceIsCountedOnce() {
        ClaimPlan.Member other = new ClaimPlan.Member(OTHER, 0, 3, 0);

        DrainRoom room = DrainRoom.of(DRAINING, List.of(other, other), List.of(held("slot-0", DRAINING)));

        assertEquals(new DrainRoom(3, 0), room, "its places once, not twice, nor lost");
    }
}
