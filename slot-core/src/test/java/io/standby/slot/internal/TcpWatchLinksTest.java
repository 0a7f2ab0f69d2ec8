package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCP transport of watch links, on real sockets bound to 127.0.0.1 and the system's monotonic clock:
 * pings flow and are acknowledged (the owner's deadline moves), the owner's end closing is the standby's
 * end of stream, a standby's goodbye gives the link up on the owner's side without a renewal, and a port
 * where another instance answers, or nothing does, gives nothing to claim by. Waits are generous: only the
 * order of facts is asserted.
 */
class TcpWatchLinksTest {

    private static final Duration P = Duration.ofMillis(500);
    private static final NodeId OWNER = new NodeId("127.0.0.1", 7001);
    private final MonotonicClock clock = System::nanoTime;
    private final AtomicInteger renewals = new AtomicInteger();
    private final Watchers watchers = new Watchers(clock, P, renewals::incrementAndGet);
    private TcpWatchLinks.Server server;

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    private Watches watching(String instance) throws IOException {
        watchers.bind(() -> 42, Duration.ofSeconds(20));
        server = new TcpWatchLinks.Server("127.0.0.1", watchers, "owner-1");
        assertEquals(server.port(), watchers.port(), "the port the owner document carries");
        Watches watches = new Watches(clock, TcpWatchLinks.connector());
        watches.watch(List.of(new Watches.Target(OWNER, instance, server.port())));
        return watches;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(5);
        }
    }

    /** Pings until the owner counts the link open and acknowledged. */
    private void pingUntilLinked(Watches watches) throws InterruptedException {
        await("the link is open", () -> watchers.open() == 1);
        await("the standby acknowledged a ping", () -> {
            watchers.tick();
            return watches.live() == 1 && watchers.blocks(42, System.nanoTime() + P.toNanos());
        });
    }

    @Test
    void pingsAreAcknowledgedAndTheOwnersCloseIsTheStandbysEndOfStream() throws Exception {
        Watches watches = watching("owner-1");
        pingUntilLinked(watches);
        long until = System.nanoTime() + 2 * P.toNanos();
        while (System.nanoTime() < until) {
            watchers.tick();
            Thread.sleep(P.toMillis() / 10);
        }
        assertEquals(1, watchers.open(), "acknowledged for two watch leases: still open");
        assertFalse(watchers.blocks(42, System.nanoTime()), "acknowledged: the deadline lies ahead");
        assertEquals(0, renewals.get());
        server.close();
        await("the standby saw the end", () -> watches.live() == 0);
        await("the link is to be marked, at beats up to 42", () -> watches.unmarked().stream().anyMatch(c -> c.maxBeat() == 42));
    }

    @Test
    void aGoodbyeGivesTheLinkUpOnTheOwnersSideWithoutARenewal() throws Exception {
        Watches watches = watching("owner-1");
        pingUntilLinked(watches);
        watches.close();
        await("the owner forgot the link", () -> watchers.open() == 0 && !watchers.blocks(0, Long.MAX_VALUE / 2));
        assertEquals(0, renewals.get());
    }

    @Test
    void anotherInstanceAtThePortGivesNothingToClaimBy() throws Exception {
        Watches watches = watching("owner-0");
        await("the standby hung up", () -> watches.live() == 0);
        assertTrue(watches.unmarked().isEmpty(), "no ping was accepted: nothing to mark or claim by");
    }

    @Test
    void aPortThatDoesNotSpeakTheProtocolGivesNothingToClaimBy() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            Thread accept = new Thread(() -> {
                try (Socket peer = other.accept(); OutputStream out = peer.getOutputStream()) {
                    out.write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes());
                } catch (IOException e) {
                    // the test ends
                }
            });
            accept.start();
            Watches watches = new Watches(clock, TcpWatchLinks.connector());
            watches.watch(List.of(new Watches.Target(OWNER, "owner-1", other.getLocalPort())));
            await("the standby hung up", () -> watches.live() == 0);
            assertTrue(watches.unmarked().isEmpty());
            accept.join();
        }
    }
}
