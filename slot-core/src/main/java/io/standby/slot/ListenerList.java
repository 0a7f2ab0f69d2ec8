package io.standby.slot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Listeners called one after the other, each even if one before it throws: the robot runtime must hear of every loss,
 * whatever happens to a log line or a meter. Once all have been called, the first failure is thrown again, with the
 * later ones suppressed in it (Curator's {@code ListenerContainer} calls its listeners the same way, one failure never
 * keeping the others from hearing).
 */
record ListenerList(List<SlotListener> listeners) implements SlotListener {

    ListenerList {
        listeners = List.copyOf(listeners);
    }

    /** The listeners in order; a list among them is spread into its own, so that calls do not nest. */
    static ListenerList of(SlotListener... listeners) {
        List<SlotListener> flat = new ArrayList<>();
        for (SlotListener listener : listeners) {
            if (listener instanceof ListenerList list) {
                flat.addAll(list.listeners());
            } else {
                flat.add(listener);
            }
        }
        return new ListenerList(flat);
    }

    private void each(Consumer<SlotListener> call) {
        Throwable failed = null;
        for (SlotListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException | Error e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed instanceof RuntimeException e) {
            throw e;
        }
        if (failed != null) {
            throw (Error) failed;
        }
    }

    @Override
    public void acquired(Lease lease) {
        each(listener -> listener.acquired(lease));
    }

    @Override
    public void acquired(Lease lease, SlotView claimed) {
        each(listener -> listener.acquired(lease, claimed));
    }

    @Override
    public void releasing(Lease lease) {
        each(listener -> listener.releasing(lease));
    }

    @Override
    public void observed(Lease lease, SlotView slot) {
        each(listener -> listener.observed(lease, slot));
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        each(listener -> listener.lost(lease, reason));
    }

    @Override
    public void paused(Lease lease) {
        each(listener -> listener.paused(lease));
    }

    @Override
    public void resumed(Lease lease) {
        each(listener -> listener.resumed(lease));
    }

    @Override
    public void claimed(SlotView slot, ClaimOutcome outcome) {
        each(listener -> listener.claimed(slot, outcome));
    }

    @Override
    public void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {
        each(listener -> listener.tookOver(lease, claimed, unowned, how, evidence));
    }

    @Override
    public void renewed(Lease lease, Duration latency) {
        each(listener -> listener.renewed(lease, latency));
    }

    @Override
    public void renewalFailed(Lease lease) {
        each(listener -> listener.renewalFailed(lease));
    }
}
