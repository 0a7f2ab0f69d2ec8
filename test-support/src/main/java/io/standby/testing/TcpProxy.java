package io.standby.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay on 127.0.0.1 that a test can pause, slow down, or hold, to fail the network between a node and the
 * database while the node's process keeps running: real faults on loopback, not mocks.
 *
 * <ul>
 *   <li>{@link #pause()}: bytes are held in both directions (new connections are accepted but get no answer), so the
 *       client's calls hang until their own timeouts fire, as when packets are dropped.
 *   <li>{@link #latency(Duration)}: every chunk towards the server waits that long first.
 *   <li>{@link #holdOpenConnections()}: what the client sends on the connections open right now is kept back, even
 *       after the client gave up and closed them, while new connections flow; then {@link #deliverHeld()} hands it to
 *       the server: a late copy of a request, as from a retransmitting dead socket or a server slow to read its socket.
 * </ul>
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final List<Link> held = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private final AtomicLong fromServer = new AtomicLong();
    private final AtomicLong toServer = new AtomicLong();
    private volatile boolean paused;
    private volatile boolean closed;
    private volatile long latencyNanos;
    private volatile ServerTimes serverTimes;

    /**
     * Told of every request the server answers: its command and collection ({@code "aggregate slots"}), when its last
     * byte went to the server and when the first byte of the answer came back, on {@link System#nanoTime()}: the time
     * the server took, queueing on its threads included, without the latency this proxy adds.
     */
    @FunctionalInterface
    public interface ServerTimes {
        void answered(String command, long sentNanos, long answeredNanos);
    }

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.target = new InetSocketAddress(targetHost, targetPort);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("tcp-proxy-accept").start(this::accept);
    }

    /** A proxy in front of the host and port of a {@code mongodb://host:port} URI. */
    public static TcpProxy to(String mongoUri) throws IOException {
        String hostPort = mongoUri.replaceFirst("^mongodb://", "").replaceFirst("[/?].*$", "");
        int colon = hostPort.lastIndexOf(':');
        return new TcpProxy(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The URI that reaches the database through this proxy, with a direct connection. */
    public String uri() {
        return "mongodb://127.0.0.1:" + port() + "/?directConnection=true";
    }

    public void pause() {
        paused = true;
    }

    public void resume() {
        synchronized (gate) {
            paused = false;
            gate.notifyAll();
        }
    }

    /** Delays every chunk the client sends by this much (zero: no delay). */
    public void latency(Duration delay) {
        latencyNanos = delay.toNanos();
    }

    /** Reports every answered request to {@code listener} from now on (null: to nobody). */
    public void serverTimes(ServerTimes listener) {
        serverTimes = listener;
    }

    /** Keeps back, from now on, what the client sends on every connection open right now. */
    public void holdOpenConnections() {
        for (Link link : links) {
            link.holding = true;
            held.add(link);
        }
    }

    /** Sends the server what was held back, then lets those connections end. Returns the bytes delivered. */
    public int deliverHeld() {
        int bytes = 0;
        for (Link link : held) {
            bytes += link.deliver();
        }
        held.clear();
        return bytes;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 5_000);
                sockets.add(client);
                sockets.add(server);
                Link link = new Link(client, server);
                links.add(link);
                Thread.ofVirtual().start(link::clientToServer);
                Thread.ofVirtual().start(() -> pump(server, client, link));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** One proxied connection, whose client-to-server direction can be held back. */
    private final class Link {
        final Socket client;
        final Socket server;
        final ByteArrayOutputStream backlog = new ByteArrayOutputStream();
        volatile boolean holding;
        boolean clientGone;
        /** Bytes of the request being relayed still to come; 0 between requests. */
        private long requestLeft;

        private String requestName = "?";
        /** The request the server has whole and not yet answered, and when its last byte went; null if none. */
        private volatile String pending;

        private volatile long pendingSent;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void clientToServer() {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = client.getInputStream()) {
                OutputStream out = server.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    awaitOpen();
                    long delay = latencyNanos;
                    if (delay > 0) {
                        Thread.sleep(Duration.ofNanos(delay));
                    }
                    synchronized (this) {
                        if (holding) {
                            backlog.write(buffer, 0, n);
                            continue;
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    toServer.addAndGet(n);
                    if (serverTimes != null) {
                        sent(buffer, n);
                    }
                }
            } catch (IOException | InterruptedException e) {
                // The client closed, or the proxy did.
            } finally {
                synchronized (this) {
                    clientGone = true;
                    if (!holding) {
                        end();
                    }
                }
            }
        }

        /** Hands what was held to the server; the server's answer goes nowhere if the client is gone. */
        synchronized int deliver() {
            int bytes = backlog.size();
            try {
                server.getOutputStream().write(backlog.toByteArray());
                server.getOutputStream().flush();
            } catch (IOException e) {
                // The server side is gone too: nothing to deliver to.
            }
            backlog.reset();
            holding = false;
            if (clientGone) {
                // No more requests will come: a half-close lets the server read and apply the late request
                // before it sees the end of the stream and closes, which ends the server-to-client pump and
                // both sockets with it (a fixed wait here was a guess at how long that takes).
                links.remove(this);
                try {
                    server.shutdownOutput();
                } catch (IOException e) {
                    end();
                }
            }
            return bytes;
        }

        /**
         * Follows the requests' boundaries by their length (a wire message starts with it): once a request's last byte
         * went, the server has it whole. An OP_MSG body starts with the command's name and its collection.
         */
        private void sent(byte[] chunk, int n) {
            if (requestLeft <= 0 && n >= 4) {
                requestLeft = littleEndianInt(chunk, 0);
                requestName = commandOf(chunk, n);
            }
            requestLeft -= n;
            if (requestLeft <= 0) {
                pendingSent = System.nanoTime();
                pending = requestName;
            }
        }

        /** A chunk of the answer came back: the first one ends the server's time for the pending request. */
        void answered() {
            String request = pending;
            ServerTimes listener = serverTimes;
            if (request != null && listener != null) {
                pending = null;
                listener.answered(request, pendingSent, System.nanoTime());
            }
        }

        void end() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /** Bytes the server has sent its clients through this proxy so far: what they read from it. */
    public long bytesFromServer() {
        return fromServer.get();
    }

    /** Bytes the clients have sent the server through this proxy so far. */
    public long bytesToServer() {
        return toServer.get();
    }

    private static int littleEndianInt(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    /**
     * {@code "find slots"} from an OP_MSG's first chunk: 16 bytes of header, 4 of flags, the section's kind, the
     * document's length and its first element's type; then the command's name and, if a string, its collection.
     */
    private static String commandOf(byte[] b, int n) {
        int at = 26;
        if (n < at || littleEndianInt(b, 12) != 2013) {
            return "?";
        }
        byte type = b[at - 1];
        int end = at;
        while (end < n && b[end] != 0) {
            end++;
        }
        String name = new String(b, at, end - at, java.nio.charset.StandardCharsets.UTF_8);
        if (type != 2 || end + 5 > n) {
            return name;
        }
        int length = littleEndianInt(b, end + 1);
        int from = end + 5;
        return length > 1 && from + length - 1 <= n
                ? name + " " + new String(b, from, length - 1, java.nio.charset.StandardCharsets.UTF_8)
                : name;
    }

    private void pump(Socket from, Socket to, Link link) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                link.answered();
                awaitOpen();
                out.write(buffer, 0, n);
                out.flush();
                fromServer.addAndGet(n);
            }
        } catch (IOException | InterruptedException e) {
            // The other side closed, or the proxy did.
        } finally {
            // The server's side of a held connection stays open until the held bytes are delivered.
            if (from.isClosed() || !isHeldServerSide(from)) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }
    }

    private boolean isHeldServerSide(Socket socket) {
        return held.stream().anyMatch(link -> link.server == socket && link.holding);
    }

    private void awaitOpen() throws InterruptedException, SocketException {
        synchronized (gate) {
            while (paused && !closed) {
                gate.wait();
            }
        }
        if (closed) {
            throw new SocketException("proxy closed");
        }
    }

    private void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        resume();
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(this::closeQuietly);
    }
}
