package io.standby.robot.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Where robots go: the least-loaded slot by the sum of robot weights (least-loaded placement), ties broken by a hash of
 * robot and slot, and the fewest moves that even the load out.
 */
public final class Placement {

    /** A robot as placement sees it: where it is (or is going), and its weight. */
    public record Item(String robotId, String slotId, double weight) {}

    /** One move of a rebalance. */
    public record Move(String robotId, String from, String to, double weight) {}

    private Placement() {}

    /** The sum of weights per slot, every candidate slot present. */
    public static Map<String, Double> loads(List<String> slots, List<Item> robots) {
        Map<String, Double> loads = new HashMap<>();
        slots.forEach(s -> loads.put(s, 0.0));
        for (Item robot : robots) {
            loads.computeIfPresent(robot.slotId(), (s, load) -> load + robot.weight());
        }
        return loads;
    }

    /** The slot for a new robot, or empty if none has room under the capacity. */
    public static Optional<String> choose(
            String robotId, double weight, Map<String, Double> loads, OptionalDouble capacity) {
        return loads.entrySet().stream()
                .filter(e -> capacity.isEmpty() || e.getValue() + weight <= capacity.getAsDouble() + 1e-9)
                .min(Comparator.<Map.Entry<String, Double>>comparingDouble(Map.Entry::getValue)
                        .thenComparingLong(e -> -hash(robotId, e.getKey())))
                .map(Map.Entry::getKey);
    }

    /**
     * Moves to the lightest slot, each time the largest robot of the heaviest slot that has one smaller than the gap
     * between the two. Each move strictly lowers the sum of squared loads, so this ends, and it moves big robots first,
     * so it moves few.
     */
    public static List<Move> rebalance(Map<String, Double> startLoads, List<Item> robots, OptionalDouble capacity) {
        Map<String, Double> loads = new HashMap<>(startLoads);
        Map<String, List<Item>> bySlot = new HashMap<>();
        for (Item robot : robots) {
            if (loads.containsKey(robot.slotId())) {
                bySlot.computeIfAbsent(robot.slotId(), s -> new ArrayList<>()).add(robot);
            }
        }
        List<Move> moves = new ArrayList<>();
        while (loads.size() > 1) {
            String light = loads.entrySet().stream()
                    .min(Map.Entry.<String, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                    .orElseThrow()
                    .getKey();
            // The heaviest slot first; if none of its robots fits the gap, the next heaviest.
            List<String> sources = loads.keySet().stream()
                    .filter(s -> !s.equals(light))
                    .sorted(Comparator.comparingDouble((String s) -> -loads.get(s))
                            .thenComparing(Comparator.naturalOrder()))
                    .toList();
            Move move = null;
            for (String heavy : sources) {
                double gap = loads.get(heavy) - loads.get(light);
                Optional<Item> best = bySlot.getOrDefault(heavy, List.of()).stream()
                        .filter(r -> r.weight() < gap - 1e-9)
                        .filter(r ->
                                capacity.isEmpty() || loads.get(light) + r.weight() <= capacity.getAsDouble() + 1e-9)
                        .max(Comparator.comparingDouble(Item::weight).thenComparing(Item::robotId));
                if (best.isPresent()) {
                    move = new Move(
                            best.get().robotId(), heavy, light, best.get().weight());
                    bySlot.get(heavy).remove(best.get());
                    break;
                }
            }
            if (move == null) {
                break;
            }
            bySlot.computeIfAbsent(light, s -> new ArrayList<>()).add(new Item(move.robotId(), light, move.weight()));
            loads.merge(move.from(), -move.weight(), Double::sum);
            loads.merge(light, move.weight(), Double::sum);
            moves.add(move);
        }
        return collapse(moves);
    }

    /** A robot moved twice in the plan moves once, from where it is to where it ends up. */
    private static List<Move> collapse(List<Move> moves) {
        Map<String, Move> byRobot = new LinkedHashMap<>();
        for (Move move : moves) {
            Move earlier = byRobot.get(move.robotId());
            byRobot.put(
                    move.robotId(),
                    earlier == null ? move : new Move(move.robotId(), earlier.from(), move.to(), move.weight()));
        }
        return byRobot.values().stream().filter(m -> !m.from().equals(m.to())).toList();
    }

    static long hash(String robotId, String slotId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((robotId + "|" + slotId).getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(digest).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
