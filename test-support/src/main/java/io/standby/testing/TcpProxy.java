package io.standby.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on 127.0.0.1 that a test can pause, to cut one node off from the database while the
 * node's process keeps running: a real network partition on loopback, not a mock.
 *
 * <p>While paused, bytes are held in both directions (new connections are accepted but get no answer),
 * so the client's calls hang until their own timeouts fire, exactly as when packets are dropped.
 * Resuming lets traffic flow again.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private volatile boolean paused;
    private volatile boolean closed;

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

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 5_000);
                sockets.add(client);
                sockets.add(server);
                Thread.ofVirtual().start(() -> pump(client, server));
                Thread.ofVirtual().start(() -> pump(server, client));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitOpen();
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // The other side closed, or the proxy did.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
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
