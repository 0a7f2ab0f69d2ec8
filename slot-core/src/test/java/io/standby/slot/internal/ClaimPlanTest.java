package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Who claims which slot at once, from the membership each node sees: a pure function, with simulated members. */
class ClaimPlanTest {

    private static SlotView free(String id) {
        return SlotView.of(id, null, null, Instant.EPOCH, Duration.ZERO, 0, Duration.ofDays(1));
    }

    private static List<SlotView> slots(int n) {
        return IntStream.range(0, n).mapToObj(i -> free("slot-" + i)).toList();
    }

    private static NodeId node(int i) {
        return new NodeId("10.0.0." + (i + 1), 7700);
    }

    private static List<ClaimPlan.Member> members(int n, int room) {
        return IntStream.range(0, n)
                .mapToObj(i -> new ClaimPlan.Member(node(i), 0, room))
                .toList();
    }

    /** Each node's plan, as it computes it from {@code seen}. */
    private static Map<NodeId, Set<String>> plans(List<SlotView> slots, List<ClaimPlan.Member> seen) {
        return plans(slots, slots, seen);
    }

    private static Map<NodeId, Set<String>> plans(
            List<SlotView> claimable, List<SlotView> all, List<ClaimPlan.Member> seen) {
        Map<NodeId, Set<String>> plans = new HashMap<>();
        for (ClaimPlan.Member m : seen) {
            plans.put(m.id(), ClaimPlan.mine(claimable, all, seen, m.id()));
        }
        return plans;
    }

    @Test
    void nodesThatSeeTheSameMembershipSplitTheSlotsWithoutOverlapOrGaps() {
        List<SlotView> slots = slots(100);
        Map<NodeId, Set<String>> plans = plans(slots, members(100, 1));
        Set<String> all = new HashSet<>();
        plans.values().forEach(p -> {
            assertTrue(p.size() <= 1, "a node with room for one is given one: " + p);
            p.forEach(s -> assertTrue(all.add(s), s + " given twice"));
        });
        assertEquals(100, all.size(), "every slot has its node");
    }

    @Test
    void theSameLayoutOnOnePortStillSpreadsBecauseTheWholeAddressIsHashed() {
        List<SlotView> slots = slots(20);
        List<ClaimPlan.Member> onePort = IntStream.range(0, 20)
                .mapToObj(i -> new ClaimPlan.Member(new NodeId("127.0.0.1", 7000 + i), 0, 1))
                .toList();
        Set<String> all = new HashSet<>();
        plans(slots, onePort).values().forEach(all::addAll);
        assertEquals(20, all.size());
    }

    @Test
    void theLeastLoadedNodeIsPlannedFirst() {
        List<ClaimPlan.Member> members = List.of(
                new ClaimPlan.Member(node(0), 85, 3),
                new ClaimPlan.Member(node(1), 12, 3),
                new ClaimPlan.Member(node(2), 47, 3));
        assertEquals(
                Set.of("slot-0"), ClaimPlan.mine(List.of(free("slot-0")), List.of(free("slot-0")), members, node(1)));
        assertEquals(Set.of(), ClaimPlan.mine(List.of(free("slot-0")), List.of(free("slot-0")), members, node(0)));
    }

    @Test
    void aNodeWithoutRoomIsPassedOverAndItsRoomIsSpentInSlotOrder() {
        List<ClaimPlan.Member> members =
                List.of(new ClaimPlan.Member(node(0), 0, 0), new ClaimPlan.Member(node(1), 0, 2));
        assertEquals(Set.of("slot-0", "slot-1"), ClaimPlan.mine(slots(3), slots(3), members, node(1)));
        assertEquals(Set.of(), ClaimPlan.mine(slots(3), slots(3), members, node(0)));
    }

    @Test
    void nodesThatDisagreeAboutWhoIsAliveOverlapOnlyWhereTheirViewsDiffer() {
        List<SlotView> slots = slots(30);
        List<ClaimPlan.Member> everyone = members(30, 1);
        // Node 0 has not yet seen nodes 20..29 register; the others see everyone.
        List<ClaimPlan.Member> partial = new ArrayList<>(everyone.subList(0, 20));
        Set<String> byNode0 = ClaimPlan.mine(slots, slots, partial, node(0));
        Map<NodeId, Set<String>> others = plans(slots, everyone);
        long overlaps = others.entrySet().stream()
                .filter(e -> !e.getKey().equals(node(0)))
                .filter(e -> e.getValue().stream().anyMatch(byNode0::contains))
                .count();
        assertTrue(byNode0.size() <= 1);
        assertTrue(overlaps <= 1, "at most one node plans node 0's slot too: " + overlaps);
        // And a slot no view gives to anyone alive is still claimed: after the head start, by whoever polls.
        Set<String> planned = new HashSet<>(byNode0);
        others.values().forEach(planned::addAll);
        assertEquals(30, planned.size(), "the full view covers every slot");
    }

    @Test
    void aPlanMadeAfterSomeNodesWonTheirSlotsAgreesWithTheFirstEvenIfTheRegistryDoesNotShowTheWinsYet() {
        List<SlotView> slots = slots(100);
        List<ClaimPlan.Member> everyone = members(100, 1);
        Map<NodeId, Set<String>> before = plans(slots, slots, everyone);
        // Every third node has won its slot; the registry still lists each of them with room for one.
        List<SlotView> after = new ArrayList<>();
        Set<NodeId> winners = new HashSet<>();
        for (SlotView slot : slots) {
            NodeId planned = before.entrySet().stream()
                    .filter(e -> e.getValue().contains(slot.id()))
                    .findFirst()
                    .orElseThrow()
                    .getKey();
            boolean won = Integer.parseInt(slot.id().substring(5)) % 3 == 0;
            if (won) {
                winners.add(planned);
            }
            after.add(
                    won
                            ? SlotView.of(
                                    slot.id(), planned, "i", Instant.now(), Duration.ofSeconds(5), 1, Duration.ZERO)
                            : slot);
        }
        List<SlotView> stillClaimable = after.stream().filter(SlotView::expired).toList();
        Map<NodeId, Set<String>> later = plans(stillClaimable, after, everyone);
        for (ClaimPlan.Member m : everyone) {
            if (!winners.contains(m.id())) {
                assertEquals(
                        before.get(m.id()), later.get(m.id()), m.id() + " changed its plan when others won theirs");
            } else {
                assertEquals(Set.of(), later.get(m.id()), m.id() + " has no room left");
            }
        }
    }

    @Test
    void aNodeThatSeesOnlyItselfPlansEverySlotItHasRoomFor() {
        assertEquals(
                Set.of("slot-0", "slot-1"),
                ClaimPlan.mine(slots(2), slots(2), List.of(new ClaimPlan.Member(node(0), 0, 5)), node(0)));
    }
}
