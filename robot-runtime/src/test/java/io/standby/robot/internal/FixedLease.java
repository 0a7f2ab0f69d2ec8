package io.standby.robot.internal;

import io.standby.slot.Lease;
import io.standby.slot.NodeId;
import java.time.Duration;

/** A lease that stays as a test sets it: valid or ended, on one slot at one epoch, held by nobody in particular. */
record FixedLease(String slotId, long epoch, boolean isValid) implements Lease {

    /** A valid lease on {@code slot-0} at epoch 4. */
    static FixedLease valid() {
        return new FixedLease("slot-0", 4, true);
    }

    @Override
    public NodeId node() {
        return null;
    }

    @Override
    public Duration sinceRenewal() {
        return isValid ? Duration.ZERO : Duration.ofMinutes(1);
    }
}
