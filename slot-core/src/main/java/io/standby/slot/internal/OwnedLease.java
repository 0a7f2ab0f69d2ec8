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
 * A lease this node holds. Its local deadline is {@code lease - fenceMargin} after the last successful renewal was
 * <em>sent</em> (for the first one: after the winning claim was sent). The server stamped that renewal no earlier than
 * it was sent, so no other node can see the lease expire before the deadline, as long as the two clocks advance at
 * about the same rate.
 *
 * <p>With fast failover, other nodes may take the slot early once its heartbeat is older than the late mark the owner
 * wrote. The lease therefore has a second, earlier point, {@code late - lateMargin} after the same send: from there it
 * is <em>paused</em> (not valid, its robots stopped) until a renewal sent later is acknowledged in time, which makes it
 * valid again under the same epoch. It pauses so only while the slot may carry the mark: while a write of it that
 * carried the mark has a beat no lower than the last acknowledged one ({@link #sendingLate}). An owner that a live
 * watch link covers writes no mark, and once such a write is acknowledged, no earlier write can put the mark back (a
 * renewal never lands on a higher beat, {@link SlotRules#renewAllFilter}), so a database that stops answering no longer
 * pauses its robots before the lease's own deadline.
 *
 * <p>With watch links ({@link OwnerLinks}), it also pauses while a link's deadline has passed and the last acknowledged
 * write of the slot carried a beat no higher than one sent on that link, until a write with a higher beat is
 * acknowledged.
 */
final class OwnedLease implements Lease {

    private final Identity identity;
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
    /** The highest beat of a write of this slot that carried the late mark, sent or not; Long.MIN_VALUE if none. */
    private final AtomicLong lateBeat;

    private final OwnerLinks ownerLinks;

    /** Which lease it is: the slot, the epoch it was won at, and the node that holds it. */
    record Identity(String slotId, long epoch, NodeId node) {}

    /**
     * How long after a renewal's send the lease stays valid, and after how long it pauses if no later renewal was
     * acknowledged ({@link #NEVER_PAUSES}: it never does).
     */
    record Timing(long validNanos, long pauseNanos) {

        static final long NEVER_PAUSES = Long.MAX_VALUE;

        /** A lease without a late mark. */
        static Timing unpaused(long validNanos) {
            return new Timing(validNanos, NEVER_PAUSES);
        }
    }

    /** The winning claim: when it was sent, the beat it wrote into the slot, and whether it wrote the late mark. */
    record Claim(long sentNanos, long beat, boolean late) {

        /** A claim that wrote the late mark, as every write of an owner with fast failover did before watch links. */
        Claim(long sentNanos, long beat) {
            this(sentNanos, beat, true);
        }
    }

    /** A lease whose claim wrote no beat, without watch links. */
    OwnedLease(Identity identity, Timing timing, MonotonicClock clock, long claimSentNanos) {
        this(identity, timing, clock, new Claim(claimSentNanos, 0), OwnerLinks.OFF);
    }

    /** @param ownerLinks this owner's watch links, which may pause the lease too */
    OwnedLease(Identity identity, Timing timing, MonotonicClock clock, Claim claim, OwnerLinks ownerLinks) {
        this.identity = identity;
        this.clock = clock;
        this.validNanos = timing.validNanos();
        long pauseNanos = timing.pauseNanos();
        // A late mark beyond the deadline pauses the lease at its deadline; no late mark (Long.MAX_VALUE) never
        // pauses it: clamped to the deadline, a lease without one would pause there, when a renewal is answered late.
        this.pauseNanos = pauseNanos == Long.MAX_VALUE ? Long.MAX_VALUE : Math.min(pauseNanos, validNanos);
        this.lastRenewalSentNanos = new AtomicLong(claim.sentNanos());
        this.ackedBeat = new AtomicLong(claim.beat());
        this.lateBeat = new AtomicLong(claim.late() ? claim.beat() : Long.MIN_VALUE);
        this.ownerLinks = ownerLinks;
    }

    @Override
    public String slotId() {
        return identity.slotId();
    }

    @Override
    public long epoch() {
        return identity.epoch();
    }

    @Override
    public NodeId node() {
        return identity.node();
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
        return (pauseNanos != Long.MAX_VALUE
                        && lateBeat.get() >= ackedBeat.get()
                        && nowNanos - lastRenewalSentNanos.get() >= pauseNanos)
                || ownerLinks.blocks(ackedBeat.get(), nowNanos);
    }

    /**
     * A write of this slot that carries the late mark, at {@code beat}, is about to be sent: from now on the lease
     * pauses at the late point again, until a write with a higher beat is acknowledged. Whatever state the slot then
     * shows was written at or after the last acknowledged send, so pausing from that send keeps ahead of any standby
     * that judges the mark.
     */
    void sendingLate(long beat) {
        lateBeat.accumulateAndGet(beat, Math::max);
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
     * Ends the pause if a renewal acknowledged since made the lease timely at {@code nowNanos}; true for the one caller
     * that resumed it.
     */
    boolean resumeIfTimely(long nowNanos) {
        return ended.get() == null
                && !releasing
                && !pauseDue(nowNanos)
                && !deadlinePassed(nowNanos)
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
     * Records a successful renewal sent at {@code sentNanos}. Returns false, changing nothing, if the deadline had
     * already passed at {@code nowNanos}: a lease that was once invalid stays invalid, even though the renewal landed,
     * and the caller must end it.
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
        return identity.slotId() + "@" + identity.epoch();
    }
}
