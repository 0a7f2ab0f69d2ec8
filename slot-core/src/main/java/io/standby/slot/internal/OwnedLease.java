package io.standby.slot.internal;

import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeId;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A lease this node holds. Its local deadline is {@code lease - fenceMargin} after the last successful
 * renewal was <em>sent</em> (for the first one: after the winning claim was sent). The server stamped
 * that renewal no earlier than it was sent, so no other node can see the lease expire before the
 * deadline, as long as the two clocks advance at about the same rate.
 */
final class OwnedLease implements Lease {

    private final String slotId;
    private final long epoch;
    private final NodeId node;
    private final MonotonicClock clock;
    private final long validNanos;
    private final AtomicLong lastRenewalSentNanos;
    private final AtomicReference<LossReason> ended = new AtomicReference<>();

    OwnedLease(String slotId, long epoch, NodeId node, MonotonicClock clock, long validNanos, long claimSentNanos) {
        this.slotId = slotId;
        this.epoch = epoch;
        this.node = node;
        this.clock = clock;
        this.validNanos = validNanos;
        this.lastRenewalSentNanos = new AtomicLong(claimSentNanos);
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
        return ended.get() == null && !deadlinePassed(clock.nanoTime());
    }

    @Override
    public Duration sinceRenewal() {
        return Duration.ofNanos(Math.max(0, clock.nanoTime() - lastRenewalSentNanos.get()));
    }

    boolean deadlinePassed(long nowNanos) {
        return nowNanos - lastRenewalSentNanos.get() >= validNanos;
    }

    /**
     * Records a successful renewal sent at {@code sentNanos}. Returns false, changing nothing, if the
     * deadline had already passed at {@code nowNanos}: a lease that was once invalid stays invalid, even
     * though the renewal landed, and the caller must end it.
     */
    boolean renewed(long sentNanos, long nowNanos) {
        if (ended.get() != null || deadlinePassed(nowNanos)) {
            return false;
        }
        // Renewals may complete out of order: keep the latest send time.
        lastRenewalSentNanos.accumulateAndGet(sentNanos, (a, b) -> b - a > 0 ? b : a);
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
