package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.Desired;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** Placement and start order: pure functions, no database. */
class PlacementTest {

    private static Placement.Item item(String id, String slot, double weight) {
        return new Placement.Item(id, slot, weight);
    }

    @Test
    void aNewRobotGoesToTheLeastLoadedSlotThatHasRoom() {
        Map<String, Double> loads = Map.of("slot-0", 3.0, "slot-1", 1.0, "slot-2", 2.0);
        assertEquals(Optional.of("slot-1"), Placement.choose("r", 1, loads, OptionalDouble.empty()));
        assertEquals(Optional.of("slot-1"), Placement.choose("r", 2, loads, OptionalDouble.of(3)));
        assertEquals(Optional.empty(), Placement.choose("r", 3, loads, OptionalDouble.of(3.5)), "no slot has room");
    }

    @Test
    void tiesAreBrokenByHashSoRobotsSpreadOverEqualSlots() {
        Map<String, Double> loads = Map.of("slot-0", 0.0, "slot-1", 0.0, "slot-2", 0.0, "slot-3", 0.0);
        long distinct = Stream.of("a", "b", "c", "d", "e", "f", "g", "h")
                .map(id ->
                        Placement.choose(id, 1, loads, OptionalDouble.empty()).orElseThrow())
                .distinct()
                .count();
        assertTrue(distinct > 1, "the same slot for every robot");
        assertEquals(
                Placement.choose("a", 1, loads, OptionalDouble.empty()),
                Placement.choose("a", 1, new HashMap<>(loads), OptionalDouble.empty()),
                "deterministic");
    }

    @Test
    void rebalanceEvensOutTheWeightWithTheFewestMoves() {
        List<Placement.Item> robots = List.of(
                item("big", "slot-0", 3),
                item("a", "slot-0", 1),
                item("b", "slot-0", 1),
                item("c", "slot-0", 1),
                item("e", "slot-1", 1),
                item("f", "slot-1", 1),
                item("g", "slot-1", 1));
        Map<String, Double> loads = Placement.loads(List.of("slot-0", "slot-1", "slot-2"), robots);

        List<Placement.Move> moves = Placement.rebalance(loads, robots, OptionalDouble.empty());

        Map<String, Double> after = new HashMap<>(loads);
        for (Placement.Move move : moves) {
            after.merge(move.from(), -move.weight(), Double::sum);
            after.merge(move.to(), move.weight(), Double::sum);
        }
        assertEquals(Map.of("slot-0", 3.0, "slot-1", 3.0, "slot-2", 3.0), after, moves.toString());
        assertEquals(List.of(new Placement.Move("big", "slot-0", "slot-2", 3)), moves, "one move is enough");
        assertEquals(
                moves.size(),
                moves.stream().map(Placement.Move::robotId).distinct().count(),
                "no robot moves twice");
    }

    @Test
    void whenTheHeaviestSlotHasNothingThatFitsTheNextHeaviestGives() {
        List<Placement.Item> robots = List.of(
                item("big", "slot-2", 4),
                item("a", "slot-0", 1),
                item("b", "slot-0", 1),
                item("c", "slot-0", 1),
                item("d", "slot-0", 1),
                item("e", "slot-1", 1));
        List<Placement.Move> moves = Placement.rebalance(
                Placement.loads(List.of("slot-0", "slot-1", "slot-2"), robots), robots, OptionalDouble.empty());
        assertEquals(
                List.of(new Placement.Move("d", "slot-0", "slot-1", 1)),
                moves,
                "4/1/4 becomes 3/2/4, the best there is");
    }

    @Test
    void aBalancedPlacementNeedsNoMoveAndCapacityIsRespected() {
        List<Placement.Item> even = List.of(item("a", "slot-0", 2), item("b", "slot-1", 2));
        assertEquals(
                List.of(),
                Placement.rebalance(Placement.loads(List.of("slot-0", "slot-1"), even), even, OptionalDouble.empty()));

        List<Placement.Item> skewed = List.of(item("a", "slot-0", 2), item("b", "slot-0", 2), item("c", "slot-1", 1));
        assertEquals(
                List.of(),
                Placement.rebalance(
                        Placement.loads(List.of("slot-0", "slot-1"), skewed), skewed, OptionalDouble.of(2.5)),
                "moving a 2 to slot-1 would exceed the capacity 2.5");
    }

    @Test
    void robotsStartByPriorityThenInterruptedFirstThenById() {
        List<RobotView> robots = List.of(
                view("z-low", -1, RobotState.RUNNING),
                view("b", 0, RobotState.PENDING),
                view("c", 0, RobotState.RUNNING),
                view("a", 0, RobotState.STOPPED),
                view("vip", 10, RobotState.PENDING));
        assertEquals(
                List.of("vip", "c", "a", "b", "z-low"),
                robots.stream().sorted(SlotRun.START_ORDER).map(RobotView::id).toList());
    }

    private static RobotView view(String id, int priority, RobotState state) {
        return new RobotView(
                id,
                "inc-" + id,
                "t",
                "slot-0",
                priority,
                1,
                new Document(),
                Desired.RUNNING,
                state,
                null,
                new Document(),
                1,
                1,
                0,
                null,
                null,
                null);
    }
}
