package io.standby.slot.internal;

import java.time.Duration;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of a standby's watch links ({@link StandbyLinks}): what arrived on it. Guarded by its {@link StandbyLinks}, whose
 * lock every method takes.
 */
public final class StandbyLink {

    private static final Logger log = LoggerFactory.getLogger(StandbyLinks.class);

    private final StandbyLinks links;
    final StandbyLinks.Target target;
    final long id;
    private final long watchLeaseNanos;
    StandbyLinks.Connection connection;
    boolean authenticated;
    long maxBeat = -1;
    /** The beat the owner's document showed at the last poll: pings far above it are refused. */
    long shownBeat;

    long lastReceived = Long.MIN_VALUE;
    final long openedAt;
    boolean ended;
    long endedAt;
    String why;
    /** Whether this node has stamped the owner's slots with the server's time since this link died. */
    boolean marked;

    StandbyLink(StandbyLinks links, StandbyLinks.Target target, long id, long now) {
        this.links = links;
        this.target = target;
        this.id = id;
        this.watchLeaseNanos = target.watchLease().toNanos();
        this.shownBeat = target.beat();
        this.openedAt = now;
    }

    /**
     * The owner proved that it holds the cluster's key and is {@code instance}: false (and the link ends) if that is
     * another instance than the one watched, or the link is dead already.
     */
    public boolean authenticated(String instance) {
        synchronized (links) {
            long now = links.clock.nanoTime();
            if (!target.instance().equals(instance)) {
                endLocked(
                        now,
                        "the owner at " + target.node() + " is instance " + instance + ", not " + target.instance());
                return false;
            }
            if (dead(now)) {
                return false;
            }
            authenticated = true;
            return true;
        }
    }

    /**
     * A ping arrived, its tag checked by the transport. Returns true if the transport must acknowledge it: the receipt
     * is recorded first, so the acknowledgement never extends the owner's deadline beyond what this side counts from.
     * False if the link is dead, or the ping is refused (see {@link StandbyLinks}).
     */
    public boolean pinged(long beat) {
        synchronized (links) {
            long now = links.clock.nanoTime();
            if (!authenticated || dead(now)) {
                return false;
            }
            if (beat < maxBeat) {
                refusedLocked(now, "a ping at beat " + beat + " after one at " + maxBeat);
                return false;
            }
            if (beat - shownBeat > StandbyLinks.BEAT_SLACK) {
                refusedLocked(
                        now,
                        "a ping at beat " + beat + ", far above the " + shownBeat + " the owner's document showed");
                return false;
            }
            if (lastReceived == Long.MIN_VALUE) {
                log.info(
                        "Watching {} (instance {}): its slots are taken about {} ms after this link dies",
                        target.node(),
                        target.instance(),
                        waitNanos() / 1_000_000);
            }
            maxBeat = beat;
            lastReceived = now;
            return true;
        }
    }

    /** The transport refused what the owner's end sent (a bad tag, a sequence out of order): the link ends. */
    public void refused(String reason) {
        synchronized (links) {
            refusedLocked(links.clock.nanoTime(), reason);
        }
    }

    /** The connection ended: end of stream, an error, a refused connect. */
    public void ended(String reason) {
        synchronized (links) {
            endLocked(links.clock.nanoTime(), reason);
        }
    }

    private void refusedLocked(long now, String reason) {
        if (!ended) {
            links.stats.refused.incrementAndGet();
            log.warn(
                    "Refused a message on the watch link to {} (instance {}): {}",
                    target.node(),
                    target.instance(),
                    reason);
        }
        endLocked(now, "refused: " + reason);
    }

    void endLocked(long now, String reason) {
        if (!ended) {
            ended = true;
            endedAt = now;
            why = reason;
            if (lastReceived != Long.MIN_VALUE) {
                links.stats.standbyEnds.incrementAndGet();
            }
        }
    }

    /** Given up (no longer watched, or this node stops): no claim is made by it, and it is not counted as a death. */
    void giveUpLocked(long now) {
        if (!ended) {
            ended = true;
            endedAt = now;
            why = "given up";
            lastReceived = Long.MIN_VALUE;
        }
    }

    /** Dead: ended, or silent for half the watch lease since the last ping, or without a handshake in time. */
    boolean dead(long now) {
        if (!ended) {
            if (lastReceived != Long.MIN_VALUE) {
                if (now - lastReceived >= watchLeaseNanos / 2) {
                    endLocked(
                            now,
                            "silent for " + Duration.ofNanos(now - lastReceived).toMillis() + " ms");
                }
            } else if (now - openedAt >= Math.max(StandbyLinks.CONNECT_TIMEOUT.toNanos(), watchLeaseNanos / 2)) {
                endLocked(
                        now,
                        "no ping within " + Duration.ofNanos(now - openedAt).toMillis() + " ms of the connect");
            }
        }
        return ended;
    }

    /** From when a claim by this link is safe, on this node's clock; empty if never (no ping received). */
    OptionalLong claimableFrom() {
        if (lastReceived == Long.MIN_VALUE) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(lastReceived + waitNanos());
    }

    /** 1.1 watch leases: how long after the last ping this node waits, and how old the server's mark must be. */
    private long waitNanos() {
        return watchLeaseNanos + watchLeaseNanos / 10;
    }

    /** Dead, with a ping received, and not yet forgotten: a link a claim may still be made by. */
    boolean usable(long now) {
        return dead(now) && claimableFrom().isPresent() && now - endedAt < StandbyLinks.FORGET_AFTER.toNanos();
    }

    StandbyLinks.Claimable claimable() {
        return new StandbyLinks.Claimable(target, maxBeat, Duration.ofNanos(waitNanos()), "its watch link " + why, id);
    }
}
