package io.standby.slot;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** Records every listener call with the JVM's monotonic time, for assertions on the order of facts. */
public final class RecordingListener implements SlotListener {

    public enum Kind {
        ACQUIRED,
        RELEASING,
        LOST,
        PAUSED,
        RESUMED
    }

    public record Event(Kind kind, String node, String slotId, long epoch, LossReason reason, long nanos) {}

    private final String name;
    private final List<Event> events;

    /** A listener writing into a log shared with other nodes' listeners. */
    public RecordingListener(String name, List<Event> sharedLog) {
        this.name = name;
        this.events = sharedLog;
    }

    public RecordingListener(String name) {
        this(name, new CopyOnWriteArrayList<>());
    }

    @Override
    public void acquired(Lease lease) {
        record(Kind.ACQUIRED, lease, null);
    }

    @Override
    public void releasing(Lease lease) {
        record(Kind.RELEASING, lease, null);
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        record(Kind.LOST, lease, reason);
    }

    @Override
    public void paused(Lease lease) {
        record(Kind.PAUSED, lease, null);
    }

    @Override
    public void resumed(Lease lease) {
        record(Kind.RESUMED, lease, null);
    }

    private void record(Kind kind, Lease lease, LossReason reason) {
        events.add(new Event(kind, name, lease.slotId(), lease.epoch(), reason, System.nanoTime()));
    }

    public List<Event> events() {
        return new ArrayList<>(events);
    }

    public List<Event> mine() {
        return events.stream().filter(e -> e.node().equals(name)).toList();
    }

    public Optional<Event> first(Predicate<Event> which) {
        return events.stream().filter(which).findFirst();
    }

    public static Predicate<Event> is(Kind kind, String node) {
        return e -> e.kind() == kind && e.node().equals(node);
    }
}
