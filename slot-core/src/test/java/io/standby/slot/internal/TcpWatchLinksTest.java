package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;
import io.standby.testing.TcpProxy;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The TCP transport of watch links, on real sockets bound to 127.0.0.1 and the system's monotonic clock: pings flow and
 * are acknowledged (the owner's deadline moves), the owner's end closing is the standby's end of stream, a standby's
 * goodbye gives the link up on the owner's side without a renewal, and a port where another instance answers, or
 * nothing does, gives nothing to claim by.
 *
 * <p>And attacks from a socket, as a stranger who reaches the port but not the database would make them:
 * acknowledgements of guessed sequence numbers from a peer that never reads, a flood of connections, a peer that
 * answers for the owner with a forged hello, forged and replayed messages from a peer that completed a handshake, an
 * authenticated standby that stops reading. None may count as a link, cost a renewal (but the one a real link's end
 * costs), hold up a thread of the owner or pause a lease. Waits are generous: only the order of facts is asserted.
 */
class TcpWatchLinksTest {

    private static final Duration P = Duration.ofMillis(500);
    private static final NodeId OWNER = new NodeId("127.0.0.1", 7001);
    private static final LinkKey KEY = LinkKey.random();
    private final MonotonicClock clock = System::nanoTime;
    private final AtomicInteger renewals = new AtomicInteger();
    private final OwnerLinks ownerLinks = new OwnerLinks(clock, P, renewals::incrementAndGet);
    private WatchListener server;
    private final List<Socket> strangers = new ArrayList<>();

    @AfterEach
    void tearDown() throws IOException {
        if (server != null) {
            server.close();
        }
        for (Socket socket : strangers) {
            socket.close();
        }
    }

    private void listen() throws IOException {
        ownerLinks.bind(() -> 42, Duration.ofSeconds(20));
        server = new WatchListener("127.0.0.1", 0, ownerLinks, "owner-1", () -> KEY);
        assertEquals(server.port(), ownerLinks.port(), "the port the owner document carries");
    }

    private StandbyLinks watching(String instance) throws IOException {
        listen();
        return watching(instance, server.port(), KEY);
    }

    private StandbyLinks watching(String instance, int port, LinkKey key) {
        StandbyLinks standbyLinks = new StandbyLinks(clock, WatchConnector.of("127.0.0.1:7002/standby-1", () -> key));
        standbyLinks.watch(List.of(new StandbyLinks.Target(OWNER, instance, port, P, 42)));
        return standbyLinks;
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what)
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(5))
                .until(condition::getAsBoolean);
    }

    /** Pings until the owner counts the link open and acknowledged. */
    private void pingUntilLinked(StandbyLinks standbyLinks) throws InterruptedException {
        await("the link is open", () -> ownerLinks.open() == 1);
        await("the standby acknowledged a ping", () -> {
            ownerLinks.tick();
            return standbyLinks.live() == 1 && ownerLinks.blocks(42, System.nanoTime() + P.toNanos());
        });
    }

    private Socket stranger() throws IOException {
        Socket socket = new Socket();
        strangers.add(socket);
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 1000);
        return socket;
    }

    /**
     * The owner never counted a link, never renewed for one, no lease of any beat can pause, and nothing covers it: it
     * goes on writing its late mark, so a stranger cannot turn fast failover off for it either.
     */
    private void assertNothingCounts(String what) {
        assertEquals(0, ownerLinks.open(), what + ": no link");
        assertFalse(ownerLinks.covered(), what + ": the owner counts as covered");
        assertEquals(0, renewals.get(), what + ": no renewal");
        assertFalse(
                ownerLinks.blocks(0, System.nanoTime() + Duration.ofHours(1).toNanos()),
                what + ": nothing can pause a lease");
    }

    @Test
    void pingsAreAcknowledgedAndTheOwnersCloseIsTheStandbysEndOfStream() throws Exception {
        StandbyLinks standbyLinks = watching("owner-1");
        pingUntilLinked(standbyLinks);
        // Ticked as the owner's pinger ticks it, for two watch leases: open and acknowledged all along.
        Awaitility.await("acknowledged for two watch leases: still open")
                .pollInterval(P.dividedBy(10))
                .during(P.multipliedBy(2))
                .atMost(P.multipliedBy(20))
                .until(() -> {
                    ownerLinks.tick();
                    return ownerLinks.open() == 1;
                });
        assertFalse(ownerLinks.blocks(42, System.nanoTime()), "acknowledged: the deadline lies ahead");
        assertEquals(0, renewals.get());
        server.close();
        await("the standby saw the end", () -> standbyLinks.live() == 0);
        await(
                "the link is to be marked, at beats up to 42",
                () -> standbyLinks.unmarked().stream().anyMatch(c -> c.maxBeat() == 42));
        assertEquals(
                0,
                ownerLinks.stats().refused() + standbyLinks.stats().refused(),
                "nothing refused on a link between two nodes");
    }

    @Test
    void aGoodbyeGivesTheLinkUpOnTheOwnersSideWithoutARenewal() throws Exception {
        StandbyLinks standbyLinks = watching("owner-1");
        pingUntilLinked(standbyLinks);
        standbyLinks.close();
        await("the owner forgot the link", () -> ownerLinks.open() == 0 && !ownerLinks.blocks(0, Long.MAX_VALUE / 2));
        assertEquals(0, renewals.get());
    }

    @Test
    void anotherInstanceAtThePortGivesNothingToClaimBy() throws Exception {
        StandbyLinks standbyLinks = watching("owner-0");
        await(
                "the standby hung up",
                () -> standbyLinks.live() == 0 && standbyLinks.nextClaimable().isEmpty());
        Awaitility.await("no ping was accepted: nothing to mark or claim by")
                .during(Duration.ofMillis(100))
                .atMost(Duration.ofSeconds(5))
                .until(() -> standbyLinks.unmarked().isEmpty());
        assertNothingCounts("a standby that wants an earlier instance");
    }

    @Test
    void aPortThatDoesNotSpeakTheProtocolIsRefusedAndGivesNothingToClaimBy() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Thread accept = Thread.ofVirtual().start(() -> {
                try (Socket peer = other.accept();
                        OutputStream out = peer.getOutputStream()) {
                    out.write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    peer.getInputStream().read();
                } catch (IOException e) {
                    // the test ends
                }
            });
            StandbyLinks standbyLinks = watching("owner-1", other.getLocalPort(), KEY);
            await("the standby refused the peer", () -> standbyLinks.stats().refused() == 1);
            assertTrue(standbyLinks.unmarked().isEmpty());
            accept.join();
        }
    }

    // A stranger at the owner's port.

    @Test
    void aStrangerThatNeverReadsAndAcknowledgesGuessedSequencesIsNeverALink() throws Exception {
        listen();
        Socket socket = stranger();
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        try {
            for (long seq = 0; seq < 1000; seq++) {
                out.writeByte('A');
                out.writeLong(seq);
            }
            out.flush();
        } catch (IOException e) {
            // the owner closed the connection at the first bytes, which are no hello: the rest finds it closed
        }
        // Beats announced and pings sent every 10 ms for 200 ms, while the stranger's guesses arrive.
        AtomicLong beat = new AtomicLong(42);
        Awaitility.await("a stranger's acknowledgements count for nothing")
                .pollInterval(Duration.ofMillis(10))
                .during(Duration.ofMillis(200))
                .atMost(Duration.ofSeconds(5))
                .until(() -> {
                    ownerLinks.announce(beat.getAndIncrement());
                    ownerLinks.tick();
                    return ownerLinks.open() == 0 && renewals.get() == 0;
                });
        assertNothingCounts("a stranger's acknowledgements");
        await("the stranger was refused", () -> ownerLinks.stats().refused() == 1);
        try {
            assertEquals(-1, socket.getInputStream().read(), "and closed");
        } catch (IOException e) {
            // closed with a reset: the owner had unread bytes when it closed
        }
    }

    @Test
    void strangersWithAWrongProofAnOversizedHelloOrNothingToSayAreRefused() throws Exception {
        listen();
        Socket forger = stranger();
        DataOutputStream out = new DataOutputStream(forger.getOutputStream());
        hello(out, "127.0.0.1:7002/standby-1", "owner-1");
        DataInputStream in = new DataInputStream(forger.getInputStream());
        assertEquals('Y', in.readUnsignedByte(), "the owner answers a hello for its own instance");
        in.readFully(new byte[LinkKey.NONCE + LinkKey.PROOF]);
        out.write(new byte[LinkKey.PROOF]);
        out.flush();
        assertEquals(-1, in.read(), "a wrong proof: closed");
        assertEquals(1, ownerLinks.stats().refused());

        Socket oversized = stranger();
        DataOutputStream claims = new DataOutputStream(oversized.getOutputStream());
        claims.writeInt(TcpWatchLinks.MAGIC);
        claims.write(new byte[LinkKey.NONCE]);
        claims.writeShort(0xFFFF);
        claims.flush();
        assertEquals(-1, oversized.getInputStream().read(), "an identity above 512 bytes: closed at its length");
        await(
                "the long identity is counted as refused",
                () -> ownerLinks.stats().refused() == 2);

        Socket silent = stranger();
        long connected = System.nanoTime();
        assertEquals(-1, silent.getInputStream().read(), "no hello: closed at the handshake's deadline");
        assertTrue(System.nanoTime() - connected
                >= TcpWatchLinks.HANDSHAKE_TIMEOUT.toNanos()
                        - Duration.ofMillis(50).toNanos());
        assertEquals(3, ownerLinks.stats().refused());
        assertNothingCounts("three strangers");
    }

    @Test
    void aFloodOfConnectionsCostsNoRenewalNoThreadAndLeavesRoomForARealStandby() throws Exception {
        listen();
        int threadsBefore = Thread.activeCount();
        for (int i = 0; i < 100; i++) {
            // Half-open handshakes that never finish: more than fit at once.
            Socket holder = stranger();
            hello(new DataOutputStream(holder.getOutputStream()), "flood-" + i, "owner-1");
        }
        long flood = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            try (Socket once = new Socket()) {
                once.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            } catch (IOException e) {
                throw new AssertionError(
                        "connect " + i + " after " + (System.nanoTime() - flood) / 1_000_000 + " ms", e);
            }
        }
        assertTrue(
                Thread.activeCount() - threadsBefore <= 4,
                "platform threads grew from " + threadsBefore + " to " + Thread.activeCount()
                        + ": connections are served on virtual threads");
        assertNothingCounts("1,100 connections");
        StandbyLinks standbyLinks = watching("owner-1", server.port(), KEY);
        pingUntilLinked(standbyLinks);
        assertEquals(0, renewals.get(), "the real link costs nothing while it lives");
    }

    @Test
    void theAcceptLoopSurvivesFailedAccepts() throws Exception {
        ownerLinks.bind(() -> 42, Duration.ofSeconds(20));
        AtomicInteger failures = new AtomicInteger(3);
        ServerSocket failing = new ServerSocket() {
            @Override
            public Socket accept() throws IOException {
                if (failures.getAndDecrement() > 0) {
                    throw new IOException("Too many open files");
                }
                return super.accept();
            }
        };
        failing.bind(new InetSocketAddress("127.0.0.1", 0));
        server = new WatchListener(failing, ownerLinks, "owner-1", () -> KEY);
        StandbyLinks standbyLinks = watching("owner-1", server.port(), KEY);
        pingUntilLinked(standbyLinks);
        assertTrue(failures.get() < 0, "three accepts failed before this link");
    }

    @Test
    void aPeerWithoutTheKeyThatAnswersForTheOwnerIsRefusedAndGivesNothingToClaimBy() throws Exception {
        // The first protocol's hello, a watch lease of 1 ms and a ping at the highest beat: before links were
        // authenticated, this made a standby claim every slot of a live owner about 2 ms later.
        try (ServerSocket impostor = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Thread answer = Thread.ofVirtual().start(() -> {
                try (Socket peer = impostor.accept()) {
                    DataOutputStream out = new DataOutputStream(peer.getOutputStream());
                    out.writeInt(0x53425731);
                    out.writeUTF("owner-1");
                    out.writeLong(1);
                    out.writeByte('P');
                    out.writeLong(0);
                    out.writeLong(Long.MAX_VALUE);
                    out.flush();
                    peer.getInputStream().readAllBytes();
                } catch (IOException e) {
                    // the test ends
                }
            });
            StandbyLinks standbyLinks = watching("owner-1", impostor.getLocalPort(), KEY);
            await("the standby refused the impostor", () -> standbyLinks.stats().refused() == 1);
            answer.join();
            assertTrue(standbyLinks.unmarked().isEmpty(), "nothing to mark or claim by");
            assertTrue(standbyLinks.nextClaimable().isEmpty());
        }
        // The same protocol, with a key of another cluster.
        listen();
        StandbyLinks other = watching("owner-1", server.port(), LinkKey.random());
        await(
                "the standby refused an owner without its key",
                () -> other.stats().refused() == 1);
        assertTrue(other.unmarked().isEmpty());
        assertNothingCounts("a standby of another cluster");
    }

    // Forged and replayed messages on a link whose handshake a peer with the key completed.

    @Test
    void aForgedOrReplayedAcknowledgementIsRefusedCountedAndEndsTheLink() throws Exception {
        listen();
        WireStandby standby = WireStandby.link(server.port(), KEY);
        ownerLinks.tick();
        long seq = standby.nextPing();
        standby.ack(seq, standby.tags.tag((byte) 'A', seq, 0));
        await("the owner counted the acknowledgement", () -> ownerLinks.blocks(42, System.nanoTime() + P.toNanos()));
        standby.ack(seq, standby.tags.tag((byte) 'A', seq, 0));
        await("a replayed acknowledgement is refused and ends the link", () -> ownerLinks.open() == 0);
        assertFalse(ownerLinks.covered(), "an ended link covers nothing");
        assertEquals(1, ownerLinks.stats().refused());
        // OwnerLinks.ended closes the link, then asks for the renewal outside its lock: wait for that ask.
        await("the end asked for a renewal", () -> renewals.get() >= 1);
        assertEquals(1, renewals.get(), "the end of a real link costs one renewal");
        standby.close();

        WireStandby forger = WireStandby.link(server.port(), KEY);
        ownerLinks.tick();
        long next = forger.nextPing();
        forger.ack(next, new byte[LinkKey.TAG]);
        await("a forged acknowledgement is refused and ends the link", () -> ownerLinks.open() == 0);
        assertFalse(ownerLinks.covered(), "a link whose only acknowledgement was forged covers nothing");
        assertEquals(2, ownerLinks.stats().refused());
        forger.close();
    }

    @Test
    void aReplayedOrForgedPingIsRefusedCountedAndNeverRaisesTheBeat() throws Exception {
        try (ServerSocket owner = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Thread replay = Thread.ofVirtual().start(() -> {
                try (Socket peer = owner.accept()) {
                    WireOwner wire = WireOwner.accept(peer, KEY, "owner-1");
                    wire.ping(0, 42);
                    wire.ping(0, 42);
                    peer.getInputStream().readAllBytes();
                } catch (IOException e) {
                    // the test ends
                }
            });
            StandbyLinks standbyLinks = watching("owner-1", owner.getLocalPort(), KEY);
            await("a replayed ping is refused", () -> standbyLinks.stats().refused() == 1);
            replay.join();
            await(
                    "the link is to be marked at the first ping's beat",
                    () -> standbyLinks.unmarked().stream().anyMatch(c -> c.maxBeat() == 42));
        }
        try (ServerSocket owner = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Thread forge = Thread.ofVirtual().start(() -> {
                try (Socket peer = owner.accept()) {
                    WireOwner wire = WireOwner.accept(peer, KEY, "owner-1");
                    wire.ping(0, 42);
                    wire.frame(1, Long.MAX_VALUE, new byte[LinkKey.TAG]);
                    peer.getInputStream().readAllBytes();
                } catch (IOException e) {
                    // the test ends
                }
            });
            StandbyLinks standbyLinks = watching("owner-1", owner.getLocalPort(), KEY);
            await("a forged ping is refused", () -> standbyLinks.stats().refused() == 1);
            forge.join();
            await(
                    "the beat stays the authentic ping's",
                    () -> standbyLinks.unmarked().stream().anyMatch(c -> c.maxBeat() == 42));
        }
    }

    @Test
    void anAuthenticatedStandbyThatStopsReadingIsCutOffWithoutHoldingUpTheOwnersThreads() throws Exception {
        listen();
        WireStandby standby = WireStandby.link(server.port(), KEY);
        await("the owner counts the link", () -> ownerLinks.open() == 1);
        long started = System.nanoTime();
        for (int i = 0; i < 300_000 && ownerLinks.open() == 1; i++) {
            ownerLinks.announce(42);
        }
        assertEquals(0, ownerLinks.open(), "cut off once its queue was full: it reads nothing");
        assertTrue(
                System.nanoTime() - started < Duration.ofSeconds(30).toNanos(),
                "announcing never waited on the network");
        await("the end asked for a renewal", () -> renewals.get() >= 1);
        assertEquals(1, renewals.get(), "its end costs one renewal");
        standby.close();
    }

    @Test
    void aStandbyWhoseRoundTripIsAboveHalfTheWatchLeaseIsRefusedBeforeItCostsAnything() throws Exception {
        listen();
        try (TcpProxy slow = new TcpProxy("127.0.0.1", server.port())) {
            slow.latency(P.multipliedBy(2).dividedBy(3));
            StandbyLinks standbyLinks = watching("owner-1", slow.port(), KEY);
            await("the owner refused the slow standby", () -> ownerLinks.stats().tooSlow() == 1);
            assertNothingCounts("a slow standby");
            assertEquals(0, ownerLinks.stats().refused(), "a slow standby is no attack");
            assertTrue(
                    standbyLinks.unmarked().isEmpty()
                            && standbyLinks.nextClaimable().isEmpty(),
                    "no ping: nothing to claim by");
        }
    }

    // Hand-written peers that speak the protocol, to send what a real node never would.

    private static void hello(DataOutputStream out, String standby, String owner) throws IOException {
        out.writeInt(TcpWatchLinks.MAGIC);
        out.write(new byte[LinkKey.NONCE]);
        writeId(out, standby);
        writeId(out, owner);
        out.flush();
    }

    private static void writeId(DataOutputStream out, String id) throws IOException {
        byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
        out.writeShort(bytes.length);
        out.write(bytes);
    }

    /** A standby that holds the key and completes the handshake, then does what the test says. */
    private static final class WireStandby implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        final LinkKey.Tags tags;

        private WireStandby(Socket socket, DataInputStream in, DataOutputStream out, LinkKey.Tags tags) {
            this.socket = socket;
            this.in = in;
            this.out = out;
            this.tags = tags;
        }

        static WireStandby link(int port, LinkKey key) throws IOException {
            Socket socket = new Socket();
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            String me = "127.0.0.1:7009/wire";
            byte[] standbyNonce = LinkKey.nonce();
            out.writeInt(TcpWatchLinks.MAGIC);
            out.write(standbyNonce);
            writeId(out, me);
            writeId(out, "owner-1");
            out.flush();
            assertEquals('Y', in.readUnsignedByte());
            byte[] ownerNonce = in.readNBytes(LinkKey.NONCE);
            byte[] proof = in.readNBytes(LinkKey.PROOF);
            assertTrue(
                    LinkKey.same(proof, key.ownerProof(standbyNonce, ownerNonce, "owner-1", me)),
                    "the owner proves it holds the key");
            out.write(key.standbyProof(standbyNonce, ownerNonce, "owner-1", me));
            out.flush();
            return new WireStandby(socket, in, out, key.tags(standbyNonce, ownerNonce, "owner-1", me));
        }

        /** The sequence number of the next ping, read whole. */
        long nextPing() throws IOException {
            assertEquals('P', in.readUnsignedByte());
            long seq = in.readLong();
            in.readLong();
            in.readNBytes(LinkKey.TAG);
            return seq;
        }

        void ack(long seq, byte[] tag) throws IOException {
            out.writeByte('A');
            out.writeLong(seq);
            out.write(tag);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** An owner that holds the key and completes the handshake, then sends what the test says. */
    private static final class WireOwner {
        final DataOutputStream out;
        final LinkKey.Tags tags;

        private WireOwner(DataOutputStream out, LinkKey.Tags tags) {
            this.out = out;
            this.tags = tags;
        }

        static WireOwner accept(Socket peer, LinkKey key, String instance) throws IOException {
            DataInputStream in = new DataInputStream(new BufferedInputStream(peer.getInputStream()));
            DataOutputStream out = new DataOutputStream(peer.getOutputStream());
            assertEquals(TcpWatchLinks.MAGIC, in.readInt());
            byte[] standbyNonce = in.readNBytes(LinkKey.NONCE);
            String standby = new String(in.readNBytes(in.readUnsignedShort()), StandardCharsets.UTF_8);
            assertEquals(instance, new String(in.readNBytes(in.readUnsignedShort()), StandardCharsets.UTF_8));
            byte[] ownerNonce = LinkKey.nonce();
            out.writeByte('Y');
            out.write(ownerNonce);
            out.write(key.ownerProof(standbyNonce, ownerNonce, instance, standby));
            out.flush();
            assertTrue(LinkKey.same(
                    in.readNBytes(LinkKey.PROOF), key.standbyProof(standbyNonce, ownerNonce, instance, standby)));
            return new WireOwner(out, key.tags(standbyNonce, ownerNonce, instance, standby));
        }

        void ping(long seq, long beat) throws IOException {
            frame(seq, beat, tags.tag((byte) 'P', seq, beat));
        }

        void frame(long seq, long beat, byte[] tag) throws IOException {
            out.writeByte('P');
            out.writeLong(seq);
            out.writeLong(beat);
            out.write(tag);
            out.flush();
        }
    }
}
