package io.standby.bench.chaos;

import io.standby.bench.Stats;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Service gaps per kind of fault: for each robot a fault affected, the time from the fault's start to the end of the
 * robot's first accepted checkpoint that began after it. Affected: for a node fault, the robots that node had a
 * checkpoint accepted for in the two leases before it; for a release, those of the slot; for a move, rm+add or
 * stop+start, the robot; for a database restart, all of them. The ledger checkpoints after every batch of new input
 * (and polls every second), so an unaffected robot shows a gap of about one input period: that is the floor of these
 * numbers.
 */
final class Gaps {

    private Gaps() {}

    static List<String> table(List<Fault> faults, List<Checkpoint> records, List<String> robots, long leaseMillis) {
        List<Checkpoint> accepted =
                records.stream().filter(Checkpoint::accepted).toList();
        Map<Fault.Kind, List<Long>> gaps = new EnumMap<>(Fault.Kind.class);
        Map<Fault.Kind, Integer> counts = new EnumMap<>(Fault.Kind.class);
        Map<Fault.Kind, Integer> never = new EnumMap<>(Fault.Kind.class);
        for (Fault fault : faults) {
            counts.merge(fault.kind(), 1, Integer::sum);
            for (String robot : affected(fault, accepted, robots, leaseMillis)) {
                long first = accepted.stream()
                        .filter(c -> c.robot().equals(robot) && c.before() >= fault.start())
                        .mapToLong(Checkpoint::after)
                        .min()
                        .orElse(-1);
                if (first < 0) {
                    never.merge(fault.kind(), 1, Integer::sum);
                } else {
                    gaps.computeIfAbsent(fault.kind(), k -> new ArrayList<>()).add(first - fault.start());
                }
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(String.format(
                "  %-10s %6s %9s %8s %8s %8s %6s",
                "fault", "faults", "affected", "p50 ms", "p99 ms", "max ms", "never"));
        for (Fault.Kind kind : Fault.Kind.values()) {
            List<Long> of = gaps.getOrDefault(kind, List.of());
            Stats stats = of.isEmpty() ? null : Stats.of(of);
            lines.add(String.format(
                    "  %-10s %6d %9d %8s %8s %8s %6d",
                    kind.label(),
                    counts.getOrDefault(kind, 0),
                    of.size(),
                    stats == null ? "-" : stats.p50(),
                    stats == null ? "-" : stats.p99(),
                    stats == null ? "-" : stats.max(),
                    never.getOrDefault(kind, 0)));
        }
        return lines;
    }

    private static Set<String> affected(Fault fault, List<Checkpoint> accepted, List<String> robots, long leaseMillis) {
        Set<String> affected = new TreeSet<>();
        long from = fault.start() - 2 * leaseMillis;
        switch (fault.kind()) {
            case DB_RESTART -> affected.addAll(robots);
            case MOVE, RM_ADD, STOP_START -> affected.add(fault.target());
            case RELEASE ->
                accepted.stream()
                        .filter(c -> c.slot().equals(fault.target()) && c.after() >= from && c.after() <= fault.start())
                        .forEach(c -> affected.add(c.robot()));
            default ->
                accepted.stream()
                        .filter(c -> c.node().equals(fault.target()) && c.after() >= from && c.after() <= fault.start())
                        .forEach(c -> affected.add(c.robot()));
        }
        return affected;
    }
}
