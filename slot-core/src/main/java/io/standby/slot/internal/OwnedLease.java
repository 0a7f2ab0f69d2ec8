package io.standby.slot.internal;

import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A lease this node holds. Its local deadline is {@code lease - fenceMargin} after the last successful
 * renewal was <em>sent</em> (for the first one: after the winning claim was sent). The server stamped
 * that renewal no earlier than it was sent, so no other node can see the lease expire before the
 * deadline, as long as the two clocks advance at about the same rate.
 *
 * <p>With fast failover, other nodes may take the slot early once its heartbeat is older than the late
 * mark the owner wrote. The lease therefore has a second, earlier point, {@code late - lateMargin} after
 * the same send: from there it is <em>paused</em> (not valid, its robots stopped) until a renewal sent
 * later is acknowledged in time, which makes it valid again under the same epoch.
 *
 * <p>With watch links ({@link OwnerLinks}), it also pauses while a link's deadline has passed and the last
 * acknowledged write of the slot carried a beat no higher than one sent on that link, until a write with
 * a higher beat is acknowledged.
 */
final class OwnedLease implements Lease {

    private final String slotId;
    private final long epoch;
    private final NodeId node;
    private final MonotonicClock clock;
    private final long validNanos;
    /** Long.MAX_VALUE for a lease without a late mark: it never pauses. */
    private final long pauseNanos;
    private final AtomicBoolean paused = new AtomicBoolean();
    /** Set when a graceful release begins: a paused lease then stays paused, its robots stopped. */
    private volatile boolean releasing;
    private final AtomicLong lastRenewalSentNanos;
    private final AtomicReference<LossReason> ended = new AtomicReference<>();
    /** The beat of the last write of this slot acknowledged: the claim's, then each renewal's. */
    private final AtomicLong ackedBeat;
    private final OwnerLinks ownerLinks;

    OwnedLease(String slotId, long epoch, NodeId node, MonotonicClock clock, long validNanos, long claimSentNanos) {
        this(slotId, epoch, node, clock, validNanos, Long.MAX_VALUE, claimSentNanos);
    }

    OwnedLease(String slotId, long epoch, NodeId node, MonotonicClock clock, long validNanos, long pauseNanos, long claimSentNanos) {
        this(slotId, epoch, node, clock, validNanos, pauseNanos, claimSentNanos, 0, OwnerLinks.OFF);
    }

    /**
     * @param pauseNanos how long after a renewal's send the lease pauses, if no later one was acknowledged
     * @param claimBeat  the beat the winning claim wrote into the slot
     * @param ownerLinks   this owner's watch links, which may pause the lease too
     */
    OwnedLease(String slotId, long epoch, NodeId node, MonotonicClock clock, long validNanos, long pauseNanos, long claimSentNanos,
               long claimBeat, OwnerLinks ownerLinks) {
        this.slotId = slotId;
        this.epoch = epoch;
        this.node = node;
        this.clock = clock;
        this.validNanos = validNanos;
        // A late mark beyond the deadline pauses the lease at its deadline; no late mark (Long.MAX_VALUE) never
        // pauses it: clamped to the deadline, a lease without one would pause there, when a renewal is answered late.
        this.pauseNanos = pauseNanos == Long.MAX_VALUE ? Long.MAX_VALUE : Math.min(pauseNanos, validNanos);
        this.lastRenewalSentNanos = new AtomicLong(claimSentNanos);
        this.ackedBeat = new AtomicLong(claimBeat);
        this.ownerLinks = ownerLinks;
    }

    @Override
    public String slotId() {
        return slotId;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public NodeId node() {
        return node;
    }

    @Override
    public boolean isValid() {
        long now = clock.nanoTime();
        return ended.get() == null && !deadlinePassed(now) && !pauseDue(now);
    }

    @Override
    public Duration sinceRenewal() {
        return Duration.ofNanos(Math.max(0, clock.nanoTime() - lastRenewalSentNanos.get()));
    }

    boolean deadlinePassed(long nowNanos) {
        return nowNanos - lastRenewalSentNanos.get() >= validNanos;
    }

    private boolean pauseDue(long nowNanos) {
        return (pauseNanos != Long.MAX_VALUE && nowNanos - lastRenewalSentNanos.get() >= pauseNanos)
                || ownerLinks.blocks(ackedBeat.get(), nowNanos);
    }

    /** Pauses the lease if its late point passed at {@code nowNanos}; true for the one caller that paused it. */
    boolean pauseIfDue(long nowNanos) {
        return ended.get() == null && pauseDue(nowNanos) && paused.compareAndSet(false, true);
    }

    /** Whether a watch link's deadline, not the late mark, pauses the lease at {@code nowNanos}. */
    boolean blockedByWatch(long nowNanos) {
        return ownerLinks.blocks(ackedBeat.get(), nowNanos);
    }

    /** Whether the lease could ever pause: for the fence check, which skips the others cheaply. */
    boolean mayPause() {
        return pauseNanos != Long.MAX_VALUE || ownerLinks.isOn();
    }

    /**
     * Ends the pause if a renewal acknowledged since made the lease timely at {@code nowNanos}; true for the
     * one caller that resumed it.
     */
    boolean resumeIfTimely(long nowNanos) {
        return ended.get() == null && !releasing && !pauseDue(nowNanos) && !deadlinePassed(nowNanos)
                && paused.compareAndSet(true, false);
    }

    /** A graceful release of this lease begins: it never resumes from a pause again. */
    void releasing() {
        releasing = true;
    }

    /** Whether the lease is paused: its late point passed and no renewal has made it timely since. */
    boolean paused() {
        return paused.get();
    }

    /**
     * Records a successful renewal sent at {@code sentNanos}. Returns false, changing nothing, if the
     * deadline had already passed at {@code nowNanos}: a lease that was once invalid stays invalid, even
     * though the renewal landed, and the caller must end it.
     */
    boolean renewed(long sentNanos, long nowNanos) {
        return renewed(sentNanos, nowNanos, 0);
    }

    /** The same, for a renewal that wrote {@code beat} into the slot. */
    boolean renewed(long sentNanos, long nowNanos, long beat) {
        if (ended.get() != null || deadlinePassed(nowNanos)) {
            return false;
        }
        // Renewals may complete out of order: keep the latest send time, and the highest beat.
        lastRenewalSentNanos.accumulateAndGet(sentNanos, (a, b) -> b - a > 0 ? b : a);
        ackedBeat.accumulateAndGet(beat, Math::max);
        return true;
    }

    /** Ends the lease; true for the one caller that ended it, who then reports the loss. */
    boolean end(LossReason reason) {
        return ended.compareAndSet(null, reason);
    }

    LossReason endReason() {
        return ended.get();
    }

    @Override
    public String toString() {
        return slotId + "@" + epoch;
    }
}
