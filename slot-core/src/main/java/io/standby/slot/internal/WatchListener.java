package io.standby.slot.internal;

import static io.standby.slot.internal.TcpWatchLinks.ACK;
import static io.standby.slot.internal.TcpWatchLinks.BYE;
import static io.standby.slot.internal.TcpWatchLinks.HANDSHAKE_TIMEOUT;
import static io.standby.slot.internal.TcpWatchLinks.MAGIC;
import static io.standby.slot.internal.TcpWatchLinks.MAX_LINKS;
import static io.standby.slot.internal.TcpWatchLinks.MAX_PENDING;
import static io.standby.slot.internal.TcpWatchLinks.NO;
import static io.standby.slot.internal.TcpWatchLinks.YES;
import static io.standby.slot.internal.TcpWatchLinks.bytes;
import static io.standby.slot.internal.TcpWatchLinks.daemon;
import static io.standby.slot.internal.TcpWatchLinks.id;
import static io.standby.slot.internal.TcpWatchLinks.printable;
import static io.standby.slot.internal.TcpWatchLinks.quietly;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner's side of watch links over TCP ({@link TcpWatchLinks} has the wire): takes links from standbys for
 * {@link OwnerLinks}, on a port of the node's ip. The accept loop has one thread of its own and survives every error;
 * each connection is served on a virtual thread; at most {@link TcpWatchLinks#MAX_PENDING} connections wait in their
 * handshake (a new one pushes the oldest out) and each gets {@link TcpWatchLinks#HANDSHAKE_TIMEOUT} in all; at most
 * {@link TcpWatchLinks#MAX_LINKS} links are open. Each link's pings go through a queue of
 * {@link TcpWatchLinks#BACKLOG}, written by the link's own virtual thread, so the threads that renew, poll and schedule
 * pings never wait on the network, and a standby that reads nothing is cut off when its queue is full.
 */
public final class WatchListener implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(WatchListener.class);
    private final ServerSocket socket;
    private final OwnerLinks ownerLinks;
    private final String instance;
    private final Supplier<LinkKey> key;
    private final WatchStats stats;
    private final Refusals refusals = new Refusals();
    /** Connections in their handshake, oldest first; guarded by itself. */
    private final Set<Socket> pending = new LinkedHashSet<>();
    /** Every connection open, for the close; guarded by {@link #pending}. */
    private final Set<Socket> open = new LinkedHashSet<>();

    private int links;
    private final Thread acceptor;
    private final ScheduledThreadPoolExecutor deadlines =
            new ScheduledThreadPoolExecutor(1, daemon("standby-watch-deadlines"));
    private volatile boolean closed;

    /**
     * Listens on {@code port} of {@code ip} (0: an ephemeral port).
     *
     * @param key the cluster's key, null until it is read: links are refused until then
     */
    public WatchListener(String ip, int port, OwnerLinks ownerLinks, String instance, Supplier<LinkKey> key)
            throws IOException {
        this(bound(ip, port), ownerLinks, instance, key);
    }

    /** On a socket bound already: for tests that make its accepts fail. */
    WatchListener(ServerSocket socket, OwnerLinks ownerLinks, String instance, Supplier<LinkKey> key) {
        this.socket = socket;
        this.ownerLinks = ownerLinks;
        this.instance = instance;
        this.key = key;
        this.stats = ownerLinks.stats();
        deadlines.setRemoveOnCancelPolicy(true);
        ownerLinks.port(socket.getLocalPort());
        acceptor = daemon("standby-watch-accept").newThread(this::accept);
        acceptor.start();
    }

    private static ServerSocket bound(String ip, int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getByName(ip), port), 128);
        return socket;
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** Accepts until closed; an error (too many open files, say) is said once, and accepting goes on. */
    private void accept() {
        int failures = 0;
        while (!closed) {
            Socket peer;
            try {
                peer = socket.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                failures++;
                if (failures == 1) {
                    log.warn(
                            "The watch listener on port {} cannot accept a connection ({}); it tries again, and "
                                    + "says when it can",
                            port(),
                            e.toString());
                }
                try {
                    Thread.sleep(Math.min(1000, 10L << Math.min(failures, 7)));
                } catch (InterruptedException interrupted) {
                    return;
                }
                continue;
            }
            if (failures > 0) {
                log.info(
                        "The watch listener on port {} accepts connections again, after {} failed accepts",
                        port(),
                        failures);
                failures = 0;
            }
            admit(peer);
        }
    }

    private void admit(Socket peer) {
        Socket oldest = null;
        synchronized (pending) {
            if (closed) {
                quietly(peer);
                return;
            }
            if (pending.size() >= MAX_PENDING) {
                oldest = pending.iterator().next();
                pending.remove(oldest);
            }
            pending.add(peer);
            open.add(peer);
        }
        if (oldest != null) {
            refusals.refused(stats, "a handshake pushed out by newer connections (" + MAX_PENDING + " at once)");
            quietly(oldest);
        }
        ScheduledFuture<?> deadline;
        try {
            deadline = deadlines.schedule(
                    () -> {
                        boolean late;
                        synchronized (pending) {
                            late = pending.remove(peer);
                        }
                        if (late) {
                            refusals.refused(stats, "no handshake within " + HANDSHAKE_TIMEOUT.toMillis() + " ms");
                            quietly(peer);
                        }
                    },
                    HANDSHAKE_TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Closed meanwhile.
            quietly(peer);
            return;
        }
        Thread.ofVirtual().name("standby-watched-by").start(() -> {
            try {
                serve(peer);
            } finally {
                deadline.cancel(false);
            }
        });
    }

    private void serve(Socket peer) {
        Object handle = null;
        PingWriter writer = null;
        boolean linked = false;
        String why = "end of stream";
        try (peer) {
            peer.setTcpNoDelay(true);
            // The handshake's deadline closes the connection; this only keeps a read from outliving it.
            peer.setSoTimeout((int) HANDSHAKE_TIMEOUT.multipliedBy(2).toMillis());
            DataInputStream in = new DataInputStream(new BufferedInputStream(peer.getInputStream(), 1024));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(peer.getOutputStream(), 1024));
            if (in.readInt() != MAGIC) {
                refusals.refused(stats, "a connection that does not speak the watch protocol");
                return;
            }
            byte[] standbyNonce = bytes(in, LinkKey.NONCE);
            String standby = id(in);
            String wanted = id(in);
            LinkKey cluster = key.get();
            if (cluster == null) {
                log.debug("A watch link from {} before this node read the cluster's key: closed", standby);
                return;
            }
            if (!instance.equals(wanted)) {
                // A standby that read an earlier instance's document: not an attack, and nothing to prove.
                out.writeByte(NO);
                out.flush();
                return;
            }
            byte[] ownerNonce = LinkKey.nonce();
            out.writeByte(YES);
            out.write(ownerNonce);
            out.write(cluster.ownerProof(standbyNonce, ownerNonce, instance, standby));
            out.flush();
            long helloSent = System.nanoTime();
            byte[] proof = bytes(in, LinkKey.PROOF);
            if (!LinkKey.same(proof, cluster.standbyProof(standbyNonce, ownerNonce, instance, standby))) {
                refusals.refused(stats, "a peer without the cluster's key, claiming to be " + printable(standby));
                return;
            }
            // Its acknowledgements must come back within half a watch lease, or the link ends and costs a renewal.
            long roundTrip = System.nanoTime() - helloSent;
            if (roundTrip > ownerLinks.watchLease().toNanos() / 2) {
                stats.tooSlow.incrementAndGet();
                log.info(
                        "Refused a watch link from {}: its round trip of {} ms is above half the watch lease ({} ms)",
                        standby,
                        roundTrip / 1_000_000,
                        ownerLinks.watchLease().toMillis());
                return;
            }
            synchronized (pending) {
                if (!pending.remove(peer) || closed) {
                    return;
                }
                if (links >= MAX_LINKS) {
                    refusals.refused(stats, "a link above the cap of " + MAX_LINKS);
                    return;
                }
                links++;
                linked = true;
            }
            peer.setSoTimeout(0);
            LinkKey.Tags tags = cluster.tags(standbyNonce, ownerNonce, instance, standby);
            writer = new PingWriter(peer, out, tags.copy());
            handle = ownerLinks.opened(writer);
            while (true) {
                byte type = in.readByte();
                if (type == ACK) {
                    long seq = in.readLong();
                    byte[] tag = bytes(in, LinkKey.TAG);
                    if (!LinkKey.same(tag, tags.tag(ACK, seq, 0))) {
                        why = refusedOnLink(standby, "an acknowledgement with a bad tag");
                        return;
                    }
                    if (!ownerLinks.acked(handle, seq)) {
                        why = refusedOnLink(standby, "an acknowledgement of ping " + seq + ", which waits for none");
                        return;
                    }
                } else if (type == BYE) {
                    byte[] tag = bytes(in, LinkKey.TAG);
                    if (!LinkKey.same(tag, tags.tag(BYE, 0, 0))) {
                        why = refusedOnLink(standby, "a goodbye with a bad tag");
                        return;
                    }
                    ownerLinks.goodbye(handle);
                    handle = null;
                    return;
                } else {
                    why = refusedOnLink(standby, "a message of unknown type " + type);
                    return;
                }
            }
        } catch (EOFException e) {
            why = "end of stream";
        } catch (ProtocolException e) {
            // Only the handshake reads what a stranger could make too long.
            refusals.refused(stats, e.getMessage());
            why = e.getMessage();
        } catch (IOException | RuntimeException e) {
            why = e.toString();
        } finally {
            synchronized (pending) {
                pending.remove(peer);
                open.remove(peer);
                if (linked) {
                    links--;
                }
            }
            if (writer != null) {
                writer.close();
            }
            if (handle != null) {
                ownerLinks.ended(handle, why);
            }
        }
    }

    private String refusedOnLink(String standby, String what) {
        stats.refused.incrementAndGet();
        log.warn("Refused {} on the watch link from {}: the link ends", what, standby);
        return "refused " + what;
    }

    /** Stops taking links and closes the open ones: their standbys see end of stream, as at an exit. */
    @Override
    public void close() {
        closed = true;
        quietly(socket);
        acceptor.interrupt();
        deadlines.shutdownNow();
        Set<Socket> all;
        synchronized (pending) {
            all = Set.copyOf(open);
        }
        all.forEach(TcpWatchLinks::quietly);
    }

    /** Refusals before a link exists, said at most once a minute: a flood must not flood the log too. */
    private static final class Refusals {
        private long since = System.nanoTime() - Duration.ofMinutes(1).toNanos();
        private long quiet;

        synchronized void refused(WatchStats stats, String what) {
            stats.refused.incrementAndGet();
            long now = System.nanoTime();
            if (now - since >= Duration.ofMinutes(1).toNanos()) {
                log.warn(
                        "Refused {} on the watch port{}",
                        what,
                        quiet > 0 ? " (and " + quiet + " more refusals in the last minute)" : "");
                since = now;
                quiet = 0;
            } else {
                quiet++;
            }
        }
    }
}
