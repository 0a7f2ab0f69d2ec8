package io.standby.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Ports for tests on 127.0.0.1, never fixed numbers: other builds share the machine. A port from
 * {@link #free()} was bound and closed again, so nothing listens on it when it is returned: a process
 * may bind it (a node's address), or a test may connect to it to meet a refusal (an unreachable database).
 * Where the code under test can bind port 0 itself, that is better still.
 */
public final class TestPorts {

    private TestPorts() {
    }

    /** A port on 127.0.0.1 that nothing listens on now. */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
