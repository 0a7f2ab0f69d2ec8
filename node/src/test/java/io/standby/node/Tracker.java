package io.standby.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the test robots did, recorded in this JVM: every node of a test runs here, so the monotonic timestamps of
 * different nodes compare. A run is the time between entering and leaving {@link Robot#run}; a second concurrent run of
 * one robot is recorded as a violation when it enters.
 */
final class Tracker {

    /** One run of a robot on a node; {@code end} is 0 while it runs. */
    static final class Run {
        final String robot;
        final String node;
        final long epoch;
        final long start;
        final long restored;
        volatile long end;
        volatile long lastAttempted = -1;
        volatile long lastAcked = -1;
        volatile String outcome;

        Run(String robot, String node, long epoch, long start, long restored) {
            this.robot = robot;
            this.node = node;
            this.epoch = epoch;
            this.start = start;
            this.restored = restored;
        }

        @Override
        public String toString() {
            return robot + "@" + node + "/e" + epoch + "[" + start / 1_000_000 + ".."
                    + (end == 0 ? "" : end / 1_000_000) + "ms restored=" + restored + " acked=" + lastAcked
                    + " attempted=" + lastAttempted + " " + outcome + "]";
        }
    }

    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> active = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    Run enter(String robot, String node, long epoch, long restored) {
        Run run = new Run(robot, node, epoch, System.nanoTime(), restored);
        if (active.computeIfAbsent(robot, r -> new AtomicInteger()).incrementAndGet() > 1) {
            violations.add("second concurrent run: " + run + " while " + running(robot));
        }
        runs.add(run);
        return run;
    }

    void leave(Run run, String outcome) {
        run.outcome = outcome;
        run.end = System.nanoTime();
        active.get(run.robot).decrementAndGet();
    }

    List<Run> runs(String robot) {
        return runs.stream()
                .filter(r -> r.robot.equals(robot))
                .sorted(Comparator.comparingLong(r -> r.start))
                .toList();
    }

    List<Run> running(String robot) {
        return runs(robot).stream().filter(r -> r.end == 0).toList();
    }

    boolean isRunning(String robot, String node) {
        return running(robot).stream().anyMatch(r -> r.node.equals(node));
    }

    List<Run> all() {
        return List.copyOf(runs);
    }

    /** Never two runs of one robot at once, on any nodes: each run starts after the one before ended. */
    void assertNoOverlap() {
        assertEquals(List.of(), violations, "concurrent runs");
        Map<String, List<Run>> byRobot = new ConcurrentHashMap<>();
        runs.forEach(
                r -> byRobot.computeIfAbsent(r.robot, k -> new ArrayList<>()).add(r));
        byRobot.forEach((robot, list) -> {
            List<Run> sorted =
                    list.stream().sorted(Comparator.comparingLong(r -> r.start)).toList();
            for (int i = 1; i < sorted.size(); i++) {
                Run before = sorted.get(i - 1);
                Run after = sorted.get(i);
                assertTrue(
                        before.end != 0 && before.end <= after.start,
                        robot + ": run " + after + " started before " + before + " ended");
            }
        });
    }
}
