package io.standby.cli;

import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotView;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo's check of "no acknowledged progress lost": it reads every counter robot's context as the story goes and
 * remembers any count lower than one read before.
 */
final class CounterWatch {

    /** The highest count each robot's context showed, and the robots whose count went back. */
    private final Map<String, Long> highest = new ConcurrentHashMap<>();

    private final Map<String, String> wentBack = new ConcurrentHashMap<>();
    private long samples;

    /** Reads every counter; the database going away at the end leaves the samples so far. */
    void sample(StandbyDatabase db) {
        try {
            sample(new RobotTable(db).list(null));
        } catch (RuntimeException e) {
            // The database is going away at the end; the samples so far stand.
        }
    }

    void sample(List<RobotView> robots) {
        counts(robots).forEach((id, count) -> {
            long before = highest.merge(id, count, Math::max);
            if (count < before) {
                wentBack.putIfAbsent(id, before + " -> " + count);
            }
        });
        samples++;
    }

    static Map<String, Long> counts(StandbyDatabase db) {
        return counts(new RobotTable(db).list(null));
    }

    static Map<String, Long> counts(List<RobotView> robots) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (RobotView robot : robots) {
            counts.put(robot.id(), robot.context().get("count") instanceof Number n ? n.longValue() : 0L);
        }
        return counts;
    }

    /** Whether every counter of {@code slot} is above its count in {@code before}. */
    static boolean grewSince(StandbyDatabase db, Map<String, Long> before, String slot) {
        Map<String, Long> now = counts(db);
        return new RobotTable(db)
                .list(slot).stream().allMatch(r -> now.getOrDefault(r.id(), 0L) > before.getOrDefault(r.id(), 0L));
    }

    /** The cluster in one line: each slot's owner and epoch, and the counters' range. */
    static String oneLine(StandbyDatabase db) {
        StringBuilder line = new StringBuilder();
        for (SlotView slot : new SlotTable(db).list()) {
            line.append(slot.id())
                    .append(' ')
                    .append(slot.owner() == null ? "free" : slot.owner() + " e" + slot.epoch())
                    .append("  ");
        }
        Map<String, Long> counts = counts(db);
        long low = counts.values().stream().mapToLong(Long::longValue).min().orElse(0);
        long high = counts.values().stream().mapToLong(Long::longValue).max().orElse(0);
        return line.append("counters ").append(low).append("..").append(high).toString();
    }

    /** The verdict's line of the summary. */
    void summarize(PrintWriter out) {
        if (wentBack.isEmpty()) {
            out.println("  no counter ever went back (" + samples + " readings of " + highest.size() + " counters)");
        } else {
            out.println("  COUNTERS WENT BACK: " + wentBack);
        }
    }
}
