package io.standby.slot.internal;

import io.standby.slot.SlotView;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A standby's own record of when it first saw each slot document in its current version.
 *
 * <p>The database's clock decides that a lease expired; this is a second, independent condition: the
 * standby must itself have seen the same version (epoch and heartbeat time) for a full lease on its
 * own monotonic clock. A jump of the database's clock alone can therefore not hand a live slot away,
 * since a live owner keeps changing the version. Released and never-owned slots need no waiting.
 * Not thread-safe: only the poll thread uses it.
 */
final class Observations {

    private record Version(long epoch, long timeMillis, String instance) {
        static Version of(SlotView slot) {
            return new Version(slot.epoch(), slot.time().toEpochMilli(), slot.instance());
        }
    }

    private record Seen(Version version, long sinceNanos) {
    }

    private final Map<String, Seen> seen = new HashMap<>();

    /**
     * Records a read. {@code readNanos} must be taken after the read returned, so it is no earlier than
     * the moment the document got its current version.
     */
    void update(List<SlotView> slots, long readNanos) {
        Map<String, Seen> next = new HashMap<>();
        for (SlotView slot : slots) {
            Version version = Version.of(slot);
            Seen before = seen.get(slot.id());
            next.put(slot.id(), before != null && before.version().equals(version) ? before : new Seen(version, readNanos));
        }
        seen.clear();
        seen.putAll(next);
    }

    /** True if this node may try to claim {@code slot} at {@code nowNanos}, as far as its own clock goes. */
    boolean waitedOut(SlotView slot, long nowNanos) {
        return slot.released() || seenFor(slot, nowNanos, slot.lease());
    }

    /**
     * True if this node has itself seen {@code slot} in its current version for {@code wait} at
     * {@code nowNanos}: for a takeover before the lease ends, the owner's late mark.
     */
    boolean seenFor(SlotView slot, long nowNanos, Duration wait) {
        Seen s = seen.get(slot.id());
        return s != null && s.version().equals(Version.of(slot)) && nowNanos - s.sinceNanos() >= wait.toNanos();
    }

}
