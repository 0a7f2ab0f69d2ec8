package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * How load scores rank the members of a plan: in steps of ten, so that small swings of a node's load change nobody's
 * share, while a node a whole step less loaded goes first for every slot it has room for.
 */
class ClaimPlanRoomTest {

    private static final NodeId X = new NodeId("10.0.0.1", 7700);
    private static final NodeId Y = new NodeId("10.0.0.2", 7700);
    private static final List<SlotView> SLOTS =
            IntStream.range(0, 20).mapToObj(i -> free("slot-" + i)).toList();

    private static SlotView free(String id) {
        return SlotView.of(id, null, null, Instant.EPOCH, Duration.ZERO, 0, Duration.ofDays(1));
    }

    private static Set<String> planOf(NodeId me, int loadX, int loadY) {
        List<ClaimPlan.Member> members =
                List.of(new ClaimPlan.Member(X, loadX, 20), new ClaimPlan.Member(Y, loadY, 20));
        return ClaimPlan.mine(SLOTS, SLOTS, members, me);
    }

    @Test
    void loadsWithinOneStepOfTenShareTheSlotsAsIfEqual() {
        Set<String> even = planOf(Y, 0, 0);
        assertFalse(even.isEmpty(), "with equal loads each node is first for some slots");
        assertTrue(even.size() < SLOTS.size());

        assertEquals(even, planOf(Y, 0, 9), "a load of 9 against 0 is the same step: the same share");
        assertEquals(even, planOf(Y, 10, 19));
    }

    @Test
    void aNodeAWholeStepLessLoadedIsFirstForEverySlotItHasRoomFor() {
        assertEquals(Set.of(), planOf(Y, 0, 10));
        assertEquals(SLOTS.size(), planOf(X, 0, 10).size());
    }
}
