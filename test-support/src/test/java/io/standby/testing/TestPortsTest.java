package io.standby.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPortsTest {

    @Test
    void portsAreDistinctBindableAndBelowTheKernelsAutomaticRange() throws IOException {
        int ephemeralLow = TestPorts.ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range"), 32768);
        List<Integer> ports = TestPorts.free(50);
        assertEquals(50, new HashSet<>(ports).size(), ports.toString());
        for (int port : ports) {
            assertTrue(port >= 20000 && port < ephemeralLow, port + " outside 20000-" + (ephemeralLow - 1));
            try (ServerSocket bound = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertEquals(port, bound.getLocalPort());
            }
        }
    }

    @Test
    void theRangeIsReadFromTheKernelsFileOrFallsBack(@TempDir Path dir) throws IOException {
        Path range = Files.writeString(dir.resolve("ip_local_port_range"), "40000\t60999\n");
        assertEquals(40000, TestPorts.ephemeralLow(range, 32768));
        assertEquals(32768, TestPorts.ephemeralLow(dir.resolve("missing"), 32768));
        assertEquals(32768, TestPorts.ephemeralLow(Files.writeString(dir.resolve("bad"), "x"), 32768));
    }
}
