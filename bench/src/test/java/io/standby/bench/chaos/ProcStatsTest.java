package io.standby.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The /proc reader, on a /proc/<pid> written by hand and on this process's own. */
class ProcStatsTest {

    @Test
    void readsResidentMemoryThreadsAndDescriptors(@TempDir Path proc) throws IOException {
        Files.writeString(
                proc.resolve("status"),
                "Name:\tjava\nState:\tS (sleeping)\nVmPeak:\t 4000000 kB\nVmRSS:\t  183456 kB\nRssAnon:\t  120000 kB\n"
                        + "Threads:\t47\nSigQ:\t0/63432\n");
        Files.createDirectories(proc.resolve("fd"));
        for (int fd = 0; fd < 5; fd++) {
            Files.writeString(proc.resolve("fd").resolve(Integer.toString(fd)), "");
        }

        assertEquals(new ProcStats(183456, 47, 5), ProcStats.of(proc));
    }

    @Test
    void aGoneProcessOrAKernelThreadHasNoFigures(@TempDir Path proc) throws IOException {
        assertNull(ProcStats.of(proc.resolve("gone")));
        Files.writeString(proc.resolve("status"), "Name:\tkthreadd\nThreads:\t1\n");
        assertNull(ProcStats.of(proc), "no VmRSS");
    }

    @Test
    void thisProcessHasSaneFigures() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "not Linux");
        ProcStats self = ProcStats.of(ProcessHandle.current().pid());
        assertNotNull(self);
        assertTrue(self.rssKb() > 1024, "RSS " + self.rssKb() + " kB");
        assertTrue(self.threads() >= 2, "threads " + self.threads());
        assertTrue(self.fds() >= 3, "fds " + self.fds());
    }
}
