package io.standby.slot.internal;

import io.standby.slot.NodeId;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * One TCP connect to a node's ip:port, to learn whether a process listens there. Only a refusal says anything: the
 * host's kernel answered that nothing listens on that port. An accepted connection, a timeout or any other error (no
 * route, unreachable host) proves nothing about the process.
 */
@FunctionalInterface
public interface OwnerProbe {

    enum Result {
        /** The host answered that nothing listens there (a TCP reset to the connect). */
        REFUSED,
        /** Something listens: a live process, or one frozen whose socket the kernel still accepts on. */
        ACCEPTED,
        /** No answer within the timeout: a host down, a network cut, or a firewall that drops. */
        TIMEOUT,
        /** Any other failure: proves nothing. */
        ERROR
    }

    Result probe(NodeId node, Duration timeout);

    /** A real TCP connect, closed at once. */
    OwnerProbe TCP = (node, timeout) -> {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(node.ip(), node.port()), (int) Math.max(1, timeout.toMillis()));
            return Result.ACCEPTED;
        } catch (SocketTimeoutException e) {
            return Result.TIMEOUT;
        } catch (ConnectException e) {
            // "Connection refused" is ECONNREFUSED; the same exception type also reports timeouts the
            // operating system gave up on, which prove nothing.
            return e.getMessage() != null && e.getMessage().startsWith("Connection refused")
                    ? Result.REFUSED
                    : Result.ERROR;
        } catch (IOException | RuntimeException e) {
            return Result.ERROR;
        }
    };

    /** Never probes: proves nothing, so no owner is ever taken for gone. */
    OwnerProbe NONE = (node, timeout) -> Result.ERROR;
}
