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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Watch links over TCP: the owner's listener ({@link Server}, which feeds {@link Watchers}) and the
 * standby's connector ({@link #connector}, which feeds {@link Watches}).
 *
 * <p>The wire. The standby opens: the int {@code SBW2}, a fresh nonce, its own identity and the owner
 * instance it wants. The owner answers {@code 'N'} if it is another instance, else {@code 'Y'}, a nonce of
 * its own and its proof; the standby checks the proof and sends its own (see {@link LinkKey}). Only then
 * does the link count: the owner pings ({@code 'P'}, sequence, beat, tag), the standby acknowledges each
 * ping ({@code 'A'}, sequence, tag) and ends a link it gives up with a goodbye ({@code 'B'}, tag). A
 * message with a bad tag, a sequence out of order or an unknown type is refused and counted, and ends the
 * link; any other end (end of stream, a reset, a timeout) is a death.
 *
 * <p>Threads and bounds, so that a stranger at the port can cost neither a pause nor the node: the accept
 * loop has one thread of its own and survives every error; each connection is served on a virtual thread;
 * at most {@link #MAX_PENDING} connections wait in their handshake (a new one pushes the oldest out) and
 * each gets {@link #HANDSHAKE_TIMEOUT} in all; at most {@link #MAX_LINKS} links are open. An owner's pings
 * go through a queue of {@link #BACKLOG} per link, written by the link's own virtual thread: the threads
 * that renew, poll, check fences and schedule pings never wait on the network, and a standby that reads
 * nothing is cut off when its queue is full.
 */
public final class TcpWatchLinks {

    private static final Logger log = LoggerFactory.getLogger(TcpWatchLinks.class);
    static final int MAGIC = 0x53425732;
    private static final byte PING = 'P';
    private static final byte ACK = 'A';
    private static final byte BYE = 'B';
    private static final byte YES = 'Y';
    private static final byte NO = 'N';
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** How long a connection has for its whole handshake. */
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(2);
    /** Connections in their handshake at once; a new one closes the oldest. */
    static final int MAX_PENDING = 64;
    /** Open links of one owner. */
    static final int MAX_LINKS = 256;
    /** Pings waiting to be written on one link. */
    static final int BACKLOG = 64;
    /** The longest identity in a handshake, in bytes. */
    private static final int MAX_ID = 512;

    private TcpWatchLinks() {
    }

    /** The owner's listener: takes links from standbys for {@code watchers}, on a port of {@code ip}. */
    public static final class Server implements Closeable {
        private final ServerSocket socket;
        private final Watchers watchers;
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
        private final ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1, daemon("standby-watch-deadlines"));
        private volatile boolean closed;

        /**
         * Listens on {@code port} of {@code ip} (0: an ephemeral port).
         *
         * @param key the cluster's key, null until it is read: links are refused until then
         */
        public Server(String ip, int port, Watchers watchers, String instance, Supplier<LinkKey> key) throws IOException {
            this(bound(ip, port), watchers, instance, key);
        }

        /** On a socket bound already: for tests that make its accepts fail. */
        Server(ServerSocket socket, Watchers watchers, String instance, Supplier<LinkKey> key) {
            this.socket = socket;
            this.watchers = watchers;
            this.instance = instance;
            this.key = key;
            this.stats = watchers.stats();
            deadlines.setRemoveOnCancelPolicy(true);
            watchers.port(socket.getLocalPort());
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
                        log.warn("The watch listener on port {} cannot accept a connection ({}); it tries again, and says when it can",
                                port(), e.toString());
                    }
                    try {
                        Thread.sleep(Math.min(1000, 10L << Math.min(failures, 7)));
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                    continue;
                }
                if (failures > 0) {
                    log.info("The watch listener on port {} accepts connections again, after {} failed accepts", port(), failures);
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
            var deadline = deadlines.schedule(() -> {
                boolean late;
                synchronized (pending) {
                    late = pending.remove(peer);
                }
                if (late) {
                    refusals.refused(stats, "no handshake within " + HANDSHAKE_TIMEOUT.toMillis() + " ms");
                    quietly(peer);
                }
            }, HANDSHAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
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
            Writer writer = null;
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
                long roundTrip = System.nanoTime() - helloSent;
                if (roundTrip > watchers.watchLease().toNanos() / 4) {
                    stats.tooSlow.incrementAndGet();
                    log.info("Refused a watch link from {}: its round trip of {} ms is above a quarter of the watch lease ({} ms)",
                            standby, roundTrip / 1_000_000, watchers.watchLease().toMillis());
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
                writer = new Writer(peer, out, tags.copy());
                handle = watchers.opened(writer);
                while (true) {
                    byte type = in.readByte();
                    if (type == ACK) {
                        long seq = in.readLong();
                        byte[] tag = bytes(in, LinkKey.TAG);
                        if (!LinkKey.same(tag, tags.tag(ACK, seq, 0))) {
                            why = refusedOnLink(standby, "an acknowledgement with a bad tag");
                            return;
                        }
                        if (!watchers.acked(handle, seq)) {
                            why = refusedOnLink(standby, "an acknowledgement of ping " + seq + ", which waits for none");
                            return;
                        }
                    } else if (type == BYE) {
                        byte[] tag = bytes(in, LinkKey.TAG);
                        if (!LinkKey.same(tag, tags.tag(BYE, 0, 0))) {
                            why = refusedOnLink(standby, "a goodbye with a bad tag");
                            return;
                        }
                        watchers.goodbye(handle);
                        handle = null;
                        return;
                    } else {
                        why = refusedOnLink(standby, "a message of unknown type " + type);
                        return;
                    }
                }
            } catch (EOFException e) {
                why = "end of stream";
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
                    watchers.ended(handle, why);
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
    }

    /** One link's pings, written by a virtual thread of its own from a bounded queue. */
    private static final class Writer implements Watchers.Link {
        private final Socket socket;
        private final DataOutputStream out;
        private final LinkKey.Tags tags;
        private final BlockingQueue<Watchers.Ping> queue = new ArrayBlockingQueue<>(BACKLOG);
        private final Thread thread;
        private volatile boolean closed;

        Writer(Socket socket, DataOutputStream out, LinkKey.Tags tags) {
            this.socket = socket;
            this.out = out;
            this.tags = tags;
            this.thread = Thread.ofVirtual().name("standby-watch-writer").start(this::run);
        }

        @Override
        public void send(Watchers.Ping ping) throws IOException {
            if (closed) {
                throw new IOException("the link is closed");
            }
            if (!queue.offer(ping)) {
                throw new IOException("the standby reads nothing: " + BACKLOG + " pings wait to be written");
            }
        }

        private void run() {
            try {
                while (!closed) {
                    Watchers.Ping ping = queue.take();
                    do {
                        out.writeByte(PING);
                        out.writeLong(ping.seq());
                        out.writeLong(ping.beat());
                        out.write(tags.tag(PING, ping.seq(), ping.beat()));
                        ping = queue.poll();
                    } while (ping != null);
                    out.flush();
                }
            } catch (InterruptedException | IOException e) {
                // closed, or the connection broke: the reader sees it too
            } finally {
                quietly(socket);
            }
        }

        @Override
        public void close() {
            closed = true;
            quietly(socket);
            thread.interrupt();
        }
    }

    /**
     * The standby's connector: one virtual thread and one connection per owner watched.
     *
     * @param standby this node's identity, {@code ip:port/instance}, as the handshake binds it
     * @param key     the cluster's key, null until it is read: no link is opened until then
     */
    public static Watches.Connector connector(String standby, Supplier<LinkKey> key) {
        return (target, link) -> {
            Conn conn = new Conn(standby, key);
            Thread.ofVirtual().name("standby-watching-" + target.node()).start(() -> conn.run(target, link));
            return conn;
        };
    }

    private static final class Conn implements Watches.Connection {
        private final String standby;
        private final Supplier<LinkKey> key;
        private final Socket socket = new Socket();
        private final ReentrantLock writing = new ReentrantLock();
        private volatile DataOutputStream out;
        private volatile LinkKey.Tags tags;
        private volatile boolean bye;

        Conn(String standby, Supplier<LinkKey> key) {
            this.standby = standby;
            this.key = key;
        }

        void run(Watches.Target target, Watches.Link link) {
            boolean keepOpen = false;
            try {
                LinkKey cluster = key.get();
                if (cluster == null) {
                    link.ended("the cluster's link key is not read yet");
                    return;
                }
                InetSocketAddress address = new InetSocketAddress(target.node().ip(), target.port());
                socket.setTcpNoDelay(true);
                socket.connect(address, (int) CONNECT_TIMEOUT.toMillis());
                socket.setSoTimeout((int) HANDSHAKE_TIMEOUT.toMillis());
                DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1024));
                out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 256));
                byte[] standbyNonce = LinkKey.nonce();
                write(o -> {
                    o.writeInt(MAGIC);
                    o.write(standbyNonce);
                    writeId(o, standby);
                    writeId(o, target.instance());
                });
                int status = in.readUnsignedByte();
                if (status == NO) {
                    link.ended("the owner at " + address + " is no longer instance " + target.instance());
                    return;
                }
                if (status != YES) {
                    link.refused("the peer at " + address + " does not speak the watch protocol");
                    return;
                }
                byte[] ownerNonce = bytes(in, LinkKey.NONCE);
                byte[] proof = bytes(in, LinkKey.PROOF);
                if (!LinkKey.same(proof, cluster.ownerProof(standbyNonce, ownerNonce, target.instance(), standby))) {
                    link.refused("the peer at " + address + " does not hold the cluster's key");
                    return;
                }
                write(o -> o.write(cluster.standbyProof(standbyNonce, ownerNonce, target.instance(), standby)));
                LinkKey.Tags mine = cluster.tags(standbyNonce, ownerNonce, target.instance(), standby);
                tags = mine.copy();
                if (!link.authenticated(target.instance())) {
                    return;
                }
                // Silence for half a watch lease kills the link on this side too (Watches counts it dead).
                socket.setSoTimeout((int) Math.max(1, target.watchLease().toMillis() / 2));
                long lastSeq = -1;
                while (true) {
                    byte type = in.readByte();
                    if (type != PING) {
                        link.refused("a message of unknown type " + type);
                        return;
                    }
                    long seq = in.readLong();
                    long beat = in.readLong();
                    byte[] tag = bytes(in, LinkKey.TAG);
                    if (!LinkKey.same(tag, mine.tag(PING, seq, beat))) {
                        link.refused("a ping with a bad tag");
                        return;
                    }
                    if (seq <= lastSeq) {
                        link.refused("ping " + seq + " after ping " + lastSeq);
                        return;
                    }
                    lastSeq = seq;
                    if (!link.pinged(beat)) {
                        // Dead, refused or given up on this side already: Watches hangs up or says goodbye, which
                        // must not find the socket closed under it.
                        keepOpen = true;
                        return;
                    }
                    byte[] ack = mine.tag(ACK, seq, 0);
                    write(o -> {
                        o.writeByte(ACK);
                        o.writeLong(seq);
                        o.write(ack);
                    });
                }
            } catch (SocketTimeoutException e) {
                link.ended("silent");
            } catch (IOException | RuntimeException e) {
                link.ended(bye ? "goodbye" : e instanceof EOFException ? "end of stream" : e.toString());
            } finally {
                if (!keepOpen && !bye) {
                    quietly(socket);
                }
            }
        }

        private interface Frame {
            void write(DataOutputStream out) throws IOException;
        }

        private void write(Frame frame) throws IOException {
            writing.lock();
            try {
                frame.write(out);
                out.flush();
            } finally {
                writing.unlock();
            }
        }

        /** Says goodbye on a virtual thread of its own: the poll thread that gives the link up never waits. */
        @Override
        public void goodbye() {
            bye = true;
            Thread.ofVirtual().name("standby-watch-goodbye").start(() -> {
                try {
                    LinkKey.Tags mine = tags;
                    if (mine != null) {
                        byte[] tag = mine.tag(BYE, 0, 0);
                        write(o -> {
                            o.writeByte(BYE);
                            o.write(tag);
                        });
                    }
                } catch (IOException | RuntimeException e) {
                    // the link is gone anyway: the owner sees its end, and keeps it as a death
                } finally {
                    quietly(socket);
                }
            });
        }

        @Override
        public void hangUp() {
            quietly(socket);
        }
    }

    /** Refusals before a link exists, said at most once a minute: a flood must not flood the log too. */
    private static final class Refusals {
        private long since = System.nanoTime() - Duration.ofMinutes(1).toNanos();
        private long quiet;

        synchronized void refused(WatchStats stats, String what) {
            stats.refused.incrementAndGet();
            long now = System.nanoTime();
            if (now - since >= Duration.ofMinutes(1).toNanos()) {
                log.warn("Refused {} on the watch port{}", what, quiet > 0 ? " (and " + quiet + " more refusals in the last minute)" : "");
                since = now;
                quiet = 0;
            } else {
                quiet++;
            }
        }
    }

    private static byte[] bytes(DataInputStream in, int length) throws IOException {
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    private static String id(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        if (length > MAX_ID) {
            throw new IOException("an identity of " + length + " bytes, above " + MAX_ID);
        }
        return new String(bytes(in, length), StandardCharsets.UTF_8);
    }

    private static void writeId(DataOutputStream out, String id) throws IOException {
        byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
        out.writeShort(bytes.length);
        out.write(bytes);
    }

    /** At most 80 characters of what a peer claims, without control characters: it goes into the log. */
    private static String printable(String claimed) {
        String clean = claimed.replaceAll("\\p{Cntrl}", "?");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }

    private static void quietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
