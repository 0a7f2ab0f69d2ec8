package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An owner's side of the watch links (fast takeover): the standbys connected to this process, and the rule that lets
 * one of them take this owner's slots within a watch lease of its death instead of the late mark.
 *
 * <p>Over each link the owner sends pings, each with a sequence number and the highest beat this process has used so
 * far ({@link LeaseBook}); every beat is announced on every open link before the write that carries it is sent. The
 * standby acknowledges each ping. From an acknowledged ping sent at {@code s}, the link's deadline is {@code s + 0.9 ×
 * watch lease}; the first ping's send counts before any acknowledgement. A standby whose link ended (end of stream, an
 * error, or silence) may claim this owner's slots at a beat no higher than the highest one it received, once {@code 1.1
 * × watch lease} has passed on its own clock since it received the last ping it acknowledged (see
 * {@link StandbyLinks}).
 *
 * <p>The rule on this side: once a link's deadline has passed, a lease whose last acknowledged write carried a beat no
 * higher than the highest beat sent on that link ({@link #blocks}) is paused, its robots stopped, until a write with a
 * higher beat is acknowledged. Such a write, once acknowledged, has landed before any claim at the lower beats could:
 * those then match nothing. And a claim that landed first makes the write fail, so the lease never resumes. So a
 * standby's claim by a link never overlaps with this owner's robots: either the owner's robots were stopped at the
 * deadline, before the claim could be sent, or a higher beat had landed, and the claim matches nothing.
 *
 * <p>When a link stops acknowledging (half a watch lease since the send of its last acknowledged ping) or ends, the
 * owner stops pinging it and renews at once ({@code renewNow}): a new beat, higher than any sent on it, usually lands
 * long before the deadline, so a standby that died or lost its connection costs one renewal, not a pause. A standby
 * that says goodbye gives up its link: it may no longer claim by it.
 *
 * <p>Thread-safe: the transport's threads, the renewal thread and the fence thread call it.
 */
public final class OwnerLinks {

    private static final Logger log = LoggerFactory.getLogger(OwnerLinks.class);

    /** No watch links: nothing ever blocks a lease. */
    public static final OwnerLinks OFF = new OwnerLinks(() -> 0, Duration.ZERO, () -> {});

    /** One end of a link, as the transport sends on it. Neither method may wait on the network. */
    public interface Link {
        /** Queues a ping; an exception (the queue is full: the standby does not read) ends the link. */
        void send(Ping ping) throws IOException;

        /** Closes the connection; the standby sees its end. */
        void close();
    }

    /** A ping: its sequence number and the highest beat this process has used (or is about to send). */
    public record Ping(long seq, long beat) {}

    private final MonotonicClock clock;
    private final Duration watchLease;
    private volatile LongSupplier currentBeat = () -> 0;
    private final Runnable renewNow;
    private final long pauseAfterNanos;
    private final long silentAfterNanos;
    /**
     * How long an ended link still counts. Past a lease after its end, every lease this owner holds has a higher beat
     * acknowledged or has ended (a renewal sent after the end carries a higher beat, and no new claim reuses a lower
     * one, see {@link #endedFloor}), so the link can no longer block anything; the standby forgets it after
     * {@link StandbyLinks#FORGET_AFTER} anyway. Kept for the longer of two leases and twice that, to be safe by a wide
     * margin.
     */
    private volatile long forgetAfterNanos;

    private final List<State> links = new ArrayList<>();
    private final WatchStats stats;
    private volatile int port;

    /** @param renewNow asks the renewal thread to renew every lease now, without waiting for it */
    public OwnerLinks(MonotonicClock clock, Duration watchLease, Runnable renewNow) {
        this(clock, watchLease, renewNow, new WatchStats());
    }

    public OwnerLinks(MonotonicClock clock, Duration watchLease, Runnable renewNow, WatchStats stats) {
        this.clock = clock;
        this.stats = stats;
        this.watchLease = watchLease;
        this.renewNow = renewNow;
        this.pauseAfterNanos = watchLease.toNanos() - watchLease.toNanos() / 10;
        this.silentAfterNanos = watchLease.toNanos() / 2;
        this.forgetAfterNanos = StandbyLinks.FORGET_AFTER.multipliedBy(2).toNanos();
    }

    /** Whether watch links are on. */
    public boolean isOn() {
        return this != OFF;
    }

    /** The port the transport takes links on: written into this owner's document for standbys to find. */
    public void port(int port) {
        this.port = port;
    }

    public int port() {
        return port;
    }

    /**
     * Binds this owner's {@link LeaseBook}: where the highest beat this process has used comes from, and the lease it
     * writes.
     */
    void bind(LongSupplier currentBeat, Duration lease) {
        this.currentBeat = currentBeat;
        this.forgetAfterNanos = Math.max(
                StandbyLinks.FORGET_AFTER.multipliedBy(2).toNanos(),
                lease.multipliedBy(2).toNanos());
    }

    public Duration watchLease() {
        return watchLease;
    }

    /** How often {@link #tick} should run: a tenth of the watch lease. */
    public Duration tickInterval() {
        return watchLease.dividedBy(10);
    }

    private final class State {
        final Link link;
        final Deque<long[]> sent = new ArrayDeque<>();
        long nextSeq;
        long maxSent = -1;
        /** No ping sent yet: Long.MAX_VALUE (nothing to protect); then the deadline. */
        long deadline = Long.MAX_VALUE;

        long lastAckedSend = Long.MIN_VALUE;
        long firstSend = Long.MIN_VALUE;
        boolean open = true;
        long endedAt;

        State(Link link) {
            this.link = link;
        }
    }

    /**
     * A new link from a standby, once the transport authenticated it (the standby holds the cluster's key): pinged at
     * once, so that the standby knows a beat from the start, and then every tick. Returns its handle for the
     * transport's callbacks.
     */
    public Object opened(Link link) {
        State state = new State(link);
        synchronized (this) {
            links.add(state);
        }
        send(state, currentBeat.getAsLong());
        return state;
    }

    /**
     * Pings every open link, and ends those that stopped acknowledging. The pinger calls it every
     * {@link #tickInterval()}.
     */
    public void tick() {
        List<State> toPing;
        boolean ended = false;
        synchronized (this) {
            long now = clock.nanoTime();
            toPing = new ArrayList<>();
            for (State s : links) {
                if (!s.open) {
                    continue;
                }
                long since = s.lastAckedSend != Long.MIN_VALUE ? s.lastAckedSend : s.firstSend;
                if (since != Long.MIN_VALUE && now - since >= silentAfterNanos) {
                    end(
                            s,
                            now,
                            "no acknowledgement for "
                                    + Duration.ofNanos(now - since).toMillis() + " ms");
                    ended = true;
                } else {
                    toPing.add(s);
                }
            }
            links.removeIf(s -> !s.open && now - s.endedAt >= forgetAfterNanos && s.deadline != Long.MAX_VALUE);
            links.removeIf(s -> !s.open && s.deadline == Long.MAX_VALUE);
        }
        if (ended) {
            renewNow.run();
        }
        for (State s : toPing) {
            send(s, currentBeat.getAsLong());
        }
    }

    /**
     * Announces {@code beat} on every open link, before the write that carries it is sent: a standby then knows every
     * beat this owner may have written by the time its link ends.
     */
    public void announce(long beat) {
        List<State> open;
        synchronized (this) {
            if (links.isEmpty()) {
                return;
            }
            open = links.stream().filter(s -> s.open).toList();
        }
        for (State s : open) {
            send(s, beat);
        }
    }

    private void send(State s, long beat) {
        Exception failed;
        synchronized (this) {
            if (!s.open) {
                return;
            }
            long now = clock.nanoTime();
            Ping ping = new Ping(s.nextSeq++, Math.max(beat, s.maxSent));
            s.maxSent = ping.beat();
            s.sent.addLast(new long[] {ping.seq(), now});
            if (s.firstSend == Long.MIN_VALUE) {
                s.firstSend = now;
                s.deadline = now + pauseAfterNanos;
            }
            try { // queued under the lock that numbered it: a tick beside opened() queued ping 1 before ping 0
                s.link.send(ping);
                return;
            } catch (IOException | RuntimeException e) {
                failed = e;
            }
        }
        ended(s, "send failed: " + failed);
    }

    /**
     * The standby acknowledged ping {@code seq}: it received it no earlier than it was sent. False if no ping
     * {@code seq} waits for its acknowledgement (never sent, or acknowledged already, or out of order): the transport
     * then refuses the message and ends the link.
     */
    public boolean acked(Object handle, long seq) {
        State s = (State) handle;
        synchronized (this) {
            if (s.sent.stream().noneMatch(sent -> sent[0] == seq)) {
                return false;
            }
            while (s.sent.peekFirst()[0] < seq) {
                s.sent.removeFirst();
            }
            long[] ping = s.sent.removeFirst();
            // Monotonic readings compare by their difference, as everywhere else.
            if (s.lastAckedSend == Long.MIN_VALUE || ping[1] - s.lastAckedSend > 0) {
                s.lastAckedSend = ping[1];
                if (ping[1] + pauseAfterNanos - s.deadline > 0) {
                    s.deadline = ping[1] + pauseAfterNanos;
                }
            }
            return true;
        }
    }

    /** The standby said goodbye: it gives up claiming by this link, which no longer counts. */
    public void goodbye(Object handle) {
        State s = (State) handle;
        synchronized (this) {
            s.open = false;
            links.remove(s);
        }
        s.link.close();
    }

    /** The link ended: end of stream or an error. This owner renews at once to outrun a claim by it. */
    public void ended(Object handle, String why) {
        State s = (State) handle;
        boolean wasOpen;
        synchronized (this) {
            wasOpen = s.open;
            if (wasOpen) {
                end(s, clock.nanoTime(), why);
            }
        }
        if (wasOpen) {
            renewNow.run();
        }
    }

    private void end(State s, long now, String why) {
        s.open = false;
        s.endedAt = now;
        stats.ownerEnds.incrementAndGet();
        s.link.close();
        if (s.maxSent >= 0) {
            log.info(
                    "A watch link ended ({}); renewing now, so that no takeover by it can match (beats up to {} "
                            + "were sent on it)",
                    why,
                    s.maxSent);
        }
    }

    /**
     * Whether a lease whose last acknowledged write carried {@code ackedBeat} must be paused at {@code now}: a link's
     * deadline has passed, and a beat as high as the lease's was sent on it.
     */
    public synchronized boolean blocks(long ackedBeat, long now) {
        for (State s : links) {
            if (s.maxSent >= ackedBeat && now - s.deadline >= 0 && s.deadline != Long.MAX_VALUE) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a standby holds a live link, one that acknowledged a ping sent within half a watch lease: the owner then
     * writes no late mark ({@link OwnerBeats}). Speed only: every takeover rests on a deadline the owner keeps.
     */
    public synchronized boolean covered() {
        long now = clock.nanoTime();
        for (State s : links) {
            if (s.open && s.lastAckedSend != Long.MIN_VALUE && now - s.lastAckedSend < silentAfterNanos) {
                return true;
            }
        }
        return false;
    }

    /** The highest beat sent on a link that ended or passed its deadline: no new claim may reuse a beat up to it. */
    public synchronized long endedFloor() {
        long now = clock.nanoTime();
        long floor = -1;
        for (State s : links) {
            if (!s.open || (s.deadline != Long.MAX_VALUE && now - s.deadline >= 0)) {
                floor = Math.max(floor, s.maxSent);
            }
        }
        return floor;
    }

    /** The open links, for metrics and tests. */
    public synchronized int open() {
        return (int) links.stream().filter(s -> s.open).count();
    }

    /** What the links did so far. */
    public WatchStats stats() {
        return stats;
    }
}
