package io.standby.slot.internal;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/**
 * Watch links over TCP: the wire, shared by the owner's listener ({@link WatchListener}, which feeds
 * {@link OwnerLinks}) and the standby's connector ({@link WatchConnector}, which feeds {@link StandbyLinks}).
 *
 * <p>The standby opens: the int {@code SBW2}, a fresh nonce, its own identity and the owner instance it wants. The
 * owner answers {@code 'N'} if it is another instance, else {@code 'Y'}, a nonce of its own and its proof; the standby
 * checks the proof and sends its own (see {@link LinkKey}). Only then does the link count: the owner pings
 * ({@code 'P'}, sequence, beat, tag), the standby acknowledges each ping ({@code 'A'}, sequence, tag) and ends a link
 * it gives up with a goodbye ({@code 'B'}, tag). A message with a bad tag, a sequence out of order or an unknown type
 * is refused and counted, and ends the link; any other end (end of stream, a reset, a timeout) is a death.
 */
public final class TcpWatchLinks {

    static final int MAGIC = 0x53425732;
    static final byte PING = 'P';
    static final byte ACK = 'A';
    static final byte BYE = 'B';
    static final byte YES = 'Y';
    static final byte NO = 'N';
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
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

    private TcpWatchLinks() {}

    static byte[] bytes(DataInputStream in, int length) throws IOException {
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    static String id(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        if (length > MAX_ID) {
            throw new ProtocolException("a hello with an identity of " + length + " bytes, above " + MAX_ID);
        }
        return new String(bytes(in, length), StandardCharsets.UTF_8);
    }

    static void writeId(DataOutputStream out, String id) throws IOException {
        byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
        out.writeShort(bytes.length);
        out.write(bytes);
    }

    /** At most 80 characters of what a peer claims, without control characters: it goes into the log. */
    static String printable(String claimed) {
        String clean = claimed.replaceAll("\\p{Cntrl}", "?");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }

    static void quietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
