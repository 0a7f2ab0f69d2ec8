package io.standby.robot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.NodeView;
import io.standby.slot.internal.NodeRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nodes registry on the simulated database, through its faulty network. It only advises claims, so it is kept
 * simpler than the slots: no rollback at a failover.
 */
final class SimNodeRegistry implements NodeRegistry {

    record Entry(NodeRecord record, long timeMs, long startedMs, boolean drain) {}

    private final SimDatabase db;
    private final Map<String, Entry> nodes;

    SimNodeRegistry(SimDatabase db, Map<String, Entry> shared) {
        this.db = db;
        this.nodes = shared;
    }

    /** The registry's contents, shared by every node of one simulation. */
    static Map<String, Entry> newContents() {
        return new TreeMap<>();
    }

    @Override
    public boolean write(NodeRecord node, Write write) {
        return db.write("register " + node.node(), () -> {
            Entry before = nodes.get(node.node().toString());
            long now = db.serverNowMs();
            boolean first = write == Write.FIRST;
            boolean drain = !first && before != null && before.drain();
            nodes.put(
                    node.node().toString(),
                    new Entry(node, now, first || before == null ? now : before.startedMs(), drain));
            return drain;
        });
    }

    @Override
    public void remove(NodeId node, String instance) {
        db.write("unregister " + node, () -> {
            Entry entry = nodes.get(node.toString());
            if (entry != null && entry.record().instance().equals(instance)) {
                nodes.remove(node.toString());
            }
            return null;
        });
    }

    @Override
    public List<NodeView> readAll() {
        return db.read("nodes", () -> {
            long now = db.serverNowMs();
            List<NodeView> views = new ArrayList<>();
            for (Entry e : nodes.values()) {
                NodeRecord r = e.record();
                views.add(new NodeView(
                        r.node(),
                        r.instance(),
                        r.host(),
                        r.state(),
                        r.slots(),
                        r.maxSlots(),
                        r.robotsRunning(),
                        r.robotsFailed(),
                        r.cpu(),
                        r.memory(),
                        r.load(),
                        r.version(),
                        r.interval(),
                        Instant.ofEpochMilli(e.startedMs()),
                        Instant.ofEpochMilli(e.timeMs()),
                        Duration.ofMillis(now - e.timeMs()),
                        e.drain(),
                        r.types()));
            }
            return views;
        });
    }

    @Override
    public long sweep(Duration olderThan) {
        return db.write("sweep nodes", () -> {
            long now = db.serverNowMs();
            List<String> gone = nodes.entrySet().stream()
                    .filter(e -> e.getValue().timeMs() + olderThan.toMillis() < now)
                    .map(Map.Entry::getKey)
                    .toList();
            gone.forEach(nodes::remove);
            return (long) gone.size();
        });
    }

    @Override
    public boolean requestDrain(NodeId node) {
        return db.write("drain " + node, () -> {
            Entry e = nodes.get(node.toString());
            if (e == null) {
                return false;
            }
            nodes.put(node.toString(), new Entry(e.record(), e.timeMs(), e.startedMs(), true));
            return true;
        });
    }
}
