package io.standby.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for tests on 127.0.0.1, never fixed numbers: other builds share the machine. A port from {@link #free()} was
 * bound and closed again, so nothing listens on it when it is returned: a process may bind it (a node's address), or a
 * test may connect to it to meet a refusal (an unreachable database). Where the code under test can bind port 0 itself,
 * that is better still.
 *
 * <p>The ports come from below the kernel's ephemeral range. A port the kernel handed out for port 0 and took back is
 * the kernel's to hand out again, to the next {@code bind(0)} or outgoing connection of any process, in the moment
 * between the probe and the test's own bind. A Spring Boot sample's node found its port taken in CI, most likely so.
 * Below the range, only a program that names a port can take it.
 */
public final class TestPorts {

    /** Where the kernel's automatic ports start; Linux's default, and the fallback where /proc does not say. */
    private static final int EPHEMERAL_LOW = ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range"), 32768);

    /** The lowest port handed out: above the well-known and most registered services' ports. */
    private static final int LOWEST = 20000;

    private static final int ATTEMPTS = 200;

    private TestPorts() {}

    /** A port on 127.0.0.1 that nothing listens on now, outside the kernel's range for automatic ports. */
    public static int free() {
        return free(1).get(0);
    }

    /** {@code count} such ports, distinct from each other: every socket is held until all are chosen. */
    public static List<Integer> free(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int attempt = 0; held.size() < count && attempt < ATTEMPTS * count; attempt++) {
                ServerSocket socket = probe();
                if (socket != null) {
                    held.add(socket);
                }
            }
            if (held.size() < count) {
                throw new UncheckedIOException(new IOException(
                        "no " + count + " free ports on 127.0.0.1 in " + LOWEST + "-" + (EPHEMERAL_LOW - 1)));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // only a probe
                }
            }
        }
    }

    /** A socket bound to a random port below the ephemeral range, or to port 0 where there is no room below. */
    private static ServerSocket probe() {
        int port = EPHEMERAL_LOW - LOWEST > 1000 ? ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_LOW) : 0;
        ServerSocket socket = null;
        try {
            socket = new ServerSocket();
            // Without it, a port a finished test's connection left in TIME_WAIT would pass the probe and fail the
            // process that binds it without the option.
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return socket;
        } catch (IOException taken) {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // never bound
                }
            }
            return null;
        }
    }

    static int ephemeralLow(Path range, int fallback) {
        // A line read, not Files.readString: that trusts the file's size, and this machine's /proc gave it 1 byte.
        try (BufferedReader reader = Files.newBufferedReader(range)) {
            String line = reader.readLine();
            return Integer.parseInt(line.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException unreadable) {
            return fallback;
        }
    }
}
