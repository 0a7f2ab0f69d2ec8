package io.standby.slot;

import java.time.Duration;

/**
 * Two listeners, called one after the other. The second is called even if the first throws: the robot
 * runtime must hear of every loss, whatever happens to a log line.
 */
record InOrder(SlotListener first, SlotListener second) implements SlotListener {
    @Override
    public void acquired(Lease lease) {
        try {
            first.acquired(lease);
        } finally {
            second.acquired(lease);
        }
    }

    @Override
    public void acquired(Lease lease, SlotView claimed) {
        try {
            first.acquired(lease, claimed);
        } finally {
            second.acquired(lease, claimed);
        }
    }

    @Override
    public void releasing(Lease lease) {
        try {
            first.releasing(lease);
        } finally {
            second.releasing(lease);
        }
    }

    @Override
    public void observed(Lease lease, SlotView slot) {
        try {
            first.observed(lease, slot);
        } finally {
            second.observed(lease, slot);
        }
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        try {
            first.lost(lease, reason);
        } finally {
            second.lost(lease, reason);
        }
    }

    @Override
    public void paused(Lease lease) {
        try {
            first.paused(lease);
        } finally {
            second.paused(lease);
        }
    }

    @Override
    public void resumed(Lease lease) {
        try {
            first.resumed(lease);
        } finally {
            second.resumed(lease);
        }
    }

    @Override
    public void claimed(SlotView slot, ClaimOutcome outcome) {
        try {
            first.claimed(slot, outcome);
        } finally {
            second.claimed(slot, outcome);
        }
    }

    @Override
    public void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {
        try {
            first.tookOver(lease, claimed, unowned, how, evidence);
        } finally {
            second.tookOver(lease, claimed, unowned, how, evidence);
        }
    }

    @Override
    public void renewed(Lease lease, Duration latency) {
        try {
            first.renewed(lease, latency);
        } finally {
            second.renewed(lease, latency);
        }
    }

    @Override
    public void renewalFailed(Lease lease) {
        try {
            first.renewalFailed(lease);
        } finally {
            second.renewalFailed(lease);
        }
    }
}
