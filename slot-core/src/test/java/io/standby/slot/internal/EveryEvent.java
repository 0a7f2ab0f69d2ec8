package io.standby.slot.internal;

import io.standby.slot.ClaimOutcome;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import io.standby.slot.Takeover;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Every call a node makes on its listener, as one line each ({@code "claimed slot-0 WON"}, {@code "lost slot-0@1
 * FENCED"}), for assertions on which facts a node reported and in which order.
 */
final class EveryEvent implements SlotListener {

    final List<String> lines = new CopyOnWriteArrayList<>();
    final List<Duration> renewalLatencies = new CopyOnWriteArrayList<>();
    final List<Duration> unowned = new CopyOnWriteArrayList<>();
    /** Runs inside {@link #lost}, on the thread that reports the loss, before the call returns. */
    volatile Consumer<Lease> onLost = lease -> {};
    /** Runs inside {@link #releasing}, before the call returns. */
    volatile Consumer<Lease> onReleasing = lease -> {};

    List<String> starting(String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).toList();
    }

    @Override
    public void acquired(Lease lease, SlotView claimed) {
        lines.add("acquired " + lease);
    }

    @Override
    public void releasing(Lease lease) {
        lines.add("releasing " + lease);
        onReleasing.accept(lease);
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        lines.add("lost " + lease + " " + reason);
        onLost.accept(lease);
    }

    @Override
    public void paused(Lease lease) {
        lines.add("paused " + lease);
    }

    @Override
    public void resumed(Lease lease) {
        lines.add("resumed " + lease);
    }

    @Override
    public void observed(Lease lease, SlotView slot) {
        lines.add("observed " + lease + " at epoch " + slot.epoch());
    }

    @Override
    public void claimed(SlotView slot, ClaimOutcome outcome) {
        lines.add("claimed " + slot.id() + " " + outcome);
    }

    @Override
    public void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {
        lines.add("tookOver " + lease + " from " + claimed.owner() + " " + how + ": " + evidence);
        this.unowned.add(unowned);
    }

    @Override
    public void renewed(Lease lease, Duration latency) {
        lines.add("renewed " + lease);
        renewalLatencies.add(latency);
    }

    @Override
    public void renewalFailed(Lease lease) {
        lines.add("renewalFailed " + lease);
    }
}
