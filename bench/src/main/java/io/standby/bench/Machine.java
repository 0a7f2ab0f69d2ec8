package io.standby.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the numbers were measured on: cores, Java, and the load average while they were. */
public final class Machine {

    private Machine() {}

    /** {@code 2 cores, Java 25, load average 0.52 0.31 0.20} (the load from /proc/loadavg, when there is one). */
    public static String describe() {
        return Runtime.getRuntime().availableProcessors() + " cores, Java "
                + Runtime.version().feature() + ", load average " + loadAverage();
    }

    public static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /**
     * CPU time a process used so far (user and system), in milliseconds, from /proc/PID/stat; -1 where there is none.
     * On a shared machine the wall time of a phase moves with the load, its CPU time much less.
     */
    public static long cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // After the command name in parentheses, which may hold spaces: state is field 3, utime 14, stime 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * 1000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** USER_HZ: 100 on every Linux the benches run on. */
    private static final long TICKS_PER_SECOND = 100;
}
