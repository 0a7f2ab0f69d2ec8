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
}
