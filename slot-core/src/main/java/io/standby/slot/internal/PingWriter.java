package io.standby.slot.internal;

import static io.standby.slot.internal.TcpWatchLinks.BACKLOG;
import static io.standby.slot.internal.TcpWatchLinks.PING;
import static io.standby.slot.internal.TcpWatchLinks.quietly;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One link's pings, written by a virtual thread of its own from a queue of {@link TcpWatchLinks#BACKLOG}: the owner's
 * threads that ping and renew only queue, and a standby that reads nothing is cut off when its queue is full (the
 * {@link IOException} of {@link #send} ends the link).
 */
final class PingWriter implements OwnerLinks.Link {
    private final Socket socket;
    private final DataOutputStream out;
    private final LinkKey.Tags tags;
    private final BlockingQueue<OwnerLinks.Ping> queue = new ArrayBlockingQueue<>(BACKLOG);
    private final Thread thread;
    private volatile boolean closed;

    PingWriter(Socket socket, DataOutputStream out, LinkKey.Tags tags) {
        this.socket = socket;
        this.out = out;
        this.tags = tags;
        this.thread = Thread.ofVirtual().name("standby-watch-writer").start(this::run);
    }

    @Override
    public void send(OwnerLinks.Ping ping) throws IOException {
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
                OwnerLinks.Ping ping = queue.take();
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
