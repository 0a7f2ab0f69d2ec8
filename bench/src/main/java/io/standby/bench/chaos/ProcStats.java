package io.standby.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What Linux says of a process in {@code /proc/<pid>}: its resident memory and threads ({@code status}) and its open
 * file descriptors (the entries of {@code fd}). Read from outside the process, so a node's own meters cannot hide what
 * its JVM holds beyond the heap (thread stacks, direct buffers, sockets).
 *
 * @param rssKb {@code VmRSS}, in kB
 * @param threads {@code Threads}
 * @param fds entries of {@code /proc/<pid>/fd}
 */
record ProcStats(long rssKb, int threads, int fds) {

    /** The process's figures now, or null if it is gone or this is not Linux. */
    static ProcStats of(long pid) {
        return of(Path.of("/proc", Long.toString(pid)));
    }

    static ProcStats of(Path proc) {
        try {
            String status = Files.readString(proc.resolve("status"));
            long rss = field(status, "VmRSS:");
            long threads = field(status, "Threads:");
            if (rss < 0 || threads < 0) {
                return null;
            }
            int fds;
            try (Stream<Path> entries = Files.list(proc.resolve("fd"))) {
                fds = (int) entries.count();
            }
            return new ProcStats(rss, (int) threads, fds);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | RuntimeException e) {
            // The process exited between the reads, or /proc says something unexpected: no figures this time.
            return null;
        }
    }

    /**
     * The number after {@code name} on its line of a {@code status} file ({@code VmRSS: 123456 kB}), or -1 without one:
     * a kernel thread has no {@code VmRSS}.
     */
    static long field(String status, String name) {
        for (String line : status.split("\n")) {
            if (line.startsWith(name)) {
                String[] words = line.substring(name.length()).trim().split("\\s+");
                try {
                    return Long.parseLong(words[0]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
