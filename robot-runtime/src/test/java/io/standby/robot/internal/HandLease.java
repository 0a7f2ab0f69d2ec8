package io.standby.robot.internal;

import io.standby.slot.Lease;
import io.standby.slot.NodeId;
import java.time.Duration;

/** A lease a test ends by hand ({@link #end()}), on {@code slot-0} at epoch 4: valid until then, never again after. */
final class HandLease implements Lease {

    private volatile boolean valid = true;

    void end() {
        valid = false;
    }

    @Override
    public String slotId() {
        return "slot-0";
    }

    @Override
    public long epoch() {
        return 4;
    }

    @Override
    public NodeId node() {
        return null;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public Duration sinceRenewal() {
        return valid ? Duration.ZERO : Duration.ofMinutes(1);
    }
}
