package io.standby.slot.internal;

import static io.standby.slot.internal.TcpWatchLinks.ACK;
import static io.standby.slot.internal.TcpWatchLinks.BYE;
import static io.standby.slot.internal.TcpWatchLinks.CONNECT_TIMEOUT;
import static io.standby.slot.internal.TcpWatchLinks.HANDSHAKE_TIMEOUT;
import static io.standby.slot.internal.TcpWatchLinks.MAGIC;
import static io.standby.slot.internal.TcpWatchLinks.NO;
import static io.standby.slot.internal.TcpWatchLinks.PING;
import static io.standby.slot.internal.TcpWatchLinks.YES;
import static io.standby.slot.internal.TcpWatchLinks.bytes;
import static io.standby.slot.internal.TcpWatchLinks.quietly;
import static io.standby.slot.internal.TcpWatchLinks.writeId;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The standby's side of watch links over TCP ({@link TcpWatchLinks} has the wire): one connection, on a virtual thread
 * of its own, to each owner {@link StandbyLinks} watches. The poll thread that opens, gives up or hangs up a link never
 * waits on the network: goodbyes are written by threads of their own.
 */
public final class WatchConnector {

    private WatchConnector() {}

    /**
     * The standby's connector: one virtual thread and one connection per owner watched.
     *
     * @param standby this node's identity, {@code ip:port/instance}, as the handshake binds it
     * @param key the cluster's key, null until it is read: no link is opened until then
     */
    public static StandbyLinks.Connector of(String standby, Supplier<LinkKey> key) {
        return (target, link) -> {
            Conn conn = new Conn(standby, key);
            Thread.ofVirtual().name("standby-watching-" + target.node()).start(() -> conn.run(target, link));
            return conn;
        };
    }

    private static final class Conn implements StandbyLinks.Connection {
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

        void run(StandbyLinks.Target target, StandbyLink link) {
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
                // Silence for half a watch lease kills the link on this side too (StandbyLinks counts it dead).
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
                        // Dead, refused or given up on this side already: StandbyLinks hangs up or says goodbye, which
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
}
