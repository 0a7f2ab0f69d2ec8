package io.standby.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Ports for tests on 127.0.0.1, never fixed numbers: other builds share the machine. A port from {@link #free()} was
 * bound and closed again, so nothing listens on it when it is returned: a process may bind it (a node's address), or a
 * test may connect to it to meet a refusal (an unreachable database). Where the code under test can bind port 0 itself,
 * that is better still.
 */
public final class TestPorts {

    private TestPorts() {}

    /** A port on 127.0.0.1 that nothing listens on now. */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    /** {@code count} such ports, distinct from each other: every socket is held until all are chosen. */
    public static List<Integer> free(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("no " + count + " free ports on 127.0.0.1", e);
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
}
