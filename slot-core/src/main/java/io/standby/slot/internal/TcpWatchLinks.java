package io.standby.slot.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watch links over TCP: the owner's listener ({@link Server}, which feeds {@link Watchers}) and the
 * standby's connector ({@link #connector()}, which feeds {@link Watches}).
 *
 * <p>The wire: the owner first sends a hello (the int {@code SBW1}, its instance id, its watch lease in
 * milliseconds); then pings ({@code 'P'}, sequence, beat), each acknowledged by the standby ({@code 'A'},
 * sequence). The standby ends a link it gives up with {@code 'B'} (goodbye); any other end (end of stream,
 * a reset, a timeout) is a death. One thread per link on either side, daemon threads.
 */
public final class TcpWatchLinks {

    private static final Logger log = LoggerFactory.getLogger(TcpWatchLinks.class);
    private static final int MAGIC = 0x53425731;
    private static final byte PING = 'P';
    private static final byte ACK = 'A';
    private static final byte BYE = 'B';
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

    private TcpWatchLinks() {
    }

    /** The owner's listener: takes links from standbys for {@code watchers}, on an ephemeral port of {@code ip}. */
    public static final class Server implements Closeable {
        private final ServerSocket socket;
        private final Watchers watchers;
        private final String instance;
        private final Set<Socket> peers = ConcurrentHashMap.newKeySet();
        private volatile boolean closed;

        public Server(String ip, Watchers watchers, String instance) throws IOException {
            this.watchers = watchers;
            this.instance = instance;
            this.socket = new ServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getByName(ip), 0));
            watchers.port(socket.getLocalPort());
            thread("standby-watch-accept", this::accept).start();
        }

        public int port() {
            return socket.getLocalPort();
        }

        private void accept() {
            while (!closed) {
                try {
                    Socket peer = socket.accept();
                    peers.add(peer);
                    if (closed) {
                        peer.close();
                        return;
                    }
                    thread("standby-watched-by-" + peer.getRemoteSocketAddress(), () -> serve(peer)).start();
                } catch (IOException e) {
                    if (!closed) {
                        log.warn("The watch listener failed: {}", e.toString());
                    }
                    return;
                }
            }
        }

        private void serve(Socket peer) {
            Object handle = null;
            try (peer) {
                peer.setTcpNoDelay(true);
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(peer.getOutputStream()));
                DataInputStream in = new DataInputStream(new BufferedInputStream(peer.getInputStream()));
                Watchers.Hello hello = watchers.hello(instance);
                synchronized (out) {
                    out.writeInt(MAGIC);
                    out.writeUTF(hello.instance());
                    out.writeLong(hello.watchLease().toMillis());
                    out.flush();
                }
                handle = watchers.opened(new Watchers.Link() {
                    @Override
                    public void send(Watchers.Ping ping) throws IOException {
                        synchronized (out) {
                            out.writeByte(PING);
                            out.writeLong(ping.seq());
                            out.writeLong(ping.beat());
                            out.flush();
                        }
                    }

                    @Override
                    public void close() {
                        try {
                            peer.close();
                        } catch (IOException e) {
                            // closing anyway
                        }
                    }
                });
                while (true) {
                    byte type = in.readByte();
                    if (type == ACK) {
                        watchers.acked(handle, in.readLong());
                    } else if (type == BYE) {
                        watchers.goodbye(handle);
                        return;
                    } else {
                        throw new IOException("unknown message type " + type);
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (handle != null) {
                    watchers.ended(handle, e instanceof EOFException ? "end of stream" : e.toString());
                }
            } finally {
                peers.remove(peer);
            }
        }

        /** Stops taking links and closes the open ones: their standbys see end of stream, as at an exit. */
        @Override
        public void close() {
            closed = true;
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            for (Socket peer : peers) {
                try {
                    peer.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
    }

    /** The standby's connector: one thread and one connection per owner watched. */
    public static Watches.Connector connector() {
        return (target, link) -> {
            Conn conn = new Conn();
            thread("standby-watching-" + target.node(), () -> conn.run(target, link)).start();
            return conn;
        };
    }

    private static final class Conn implements Watches.Connection {
        private final Socket socket = new Socket();
        private DataOutputStream out;
        private volatile boolean bye;

        void run(Watches.Target target, Watches.Link link) {
            try (socket) {
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(target.node().ip(), target.port()), (int) CONNECT_TIMEOUT.toMillis());
                DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
                synchronized (this) {
                    out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
                }
                socket.setSoTimeout((int) CONNECT_TIMEOUT.toMillis());
                if (in.readInt() != MAGIC) {
                    link.ended("not a watch listener");
                    return;
                }
                String instance = in.readUTF();
                Duration watchLease = Duration.ofMillis(in.readLong());
                if (!link.hello(instance, watchLease)) {
                    return;
                }
                // Silence for half a watch lease kills the link on this side too (Watches counts it dead).
                socket.setSoTimeout((int) Math.max(1, watchLease.toMillis() / 2));
                while (true) {
                    if (in.readByte() != PING) {
                        link.ended("unknown message");
                        return;
                    }
                    long seq = in.readLong();
                    long beat = in.readLong();
                    if (!link.pinged(beat)) {
                        // Dead on this side already: hang up without a goodbye.
                        return;
                    }
                    synchronized (this) {
                        out.writeByte(ACK);
                        out.writeLong(seq);
                        out.flush();
                    }
                }
            } catch (SocketTimeoutException e) {
                link.ended("silent");
            } catch (IOException | RuntimeException e) {
                link.ended(bye ? "goodbye" : e instanceof EOFException ? "end of stream" : e.toString());
            }
        }

        @Override
        public void goodbye() {
            bye = true;
            try {
                synchronized (this) {
                    if (out != null) {
                        out.writeByte(BYE);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // the link is gone anyway
            } finally {
                try {
                    socket.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
    }

    private static Thread thread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }
}
