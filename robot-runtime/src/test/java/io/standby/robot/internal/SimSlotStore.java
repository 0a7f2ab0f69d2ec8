package io.standby.robot.internal;

import io.standby.robot.internal.SimDatabase.SlotDoc;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import io.standby.slot.internal.SlotStore;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The slot store's operations on the simulated database, with the conditions of {@code MongoSlotStore}'s
 * filters: the contract suite checks those against real servers, this checks the protocol built on them.
 * Reads see the majority-committed state; writes are compare-and-sets on the primary.
 */
final class SimSlotStore implements SlotStore {

    private final SimDatabase db;

    SimSlotStore(SimDatabase db) {
        this.db = db;
    }

    @Override
    public List<SlotView> readAll() {
        return db.read("slots", () -> {
            List<SlotView> views = new ArrayList<>();
            long now = db.serverNowMs();
            db.committedSlots.values().forEach(doc -> views.add(view(doc, now)));
            return views;
        });
    }

    @Override
    public Optional<SlotView> read(String slotId) {
        return db.read(slotId, () -> Optional.ofNullable(db.committedSlots.get(slotId)).map(doc -> view(doc, db.serverNowMs())));
    }

    private static SlotView view(SlotDoc doc, long nowMs) {
        NodeId owner = doc.ip == null ? null : new NodeId(doc.ip, doc.port);
        return new SlotView(doc.id, owner, doc.instance, Instant.ofEpochMilli(doc.timeMs), Duration.ofMillis(doc.leaseMs),
                doc.epoch, Duration.ofMillis(nowMs - doc.timeMs), doc.changes, doc.lateMs == null ? null : Duration.ofMillis(doc.lateMs),
                doc.drain);
    }

    @Override
    public boolean claim(SlotView seen, Ownership owner) {
        return db.write("claim " + seen.id() + "@" + seen.epoch() + " by " + owner.node(), () -> {
            SlotDoc doc = db.slots.get(seen.id());
            boolean matches = doc != null && doc.epoch == seen.epoch() && doc.timeMs == seen.time().toEpochMilli()
                    && doc.timeMs + doc.leaseMs < db.serverNowMs();
            if (matches) {
                take(doc, owner);
            }
            return matches;
        });
    }

    @Override
    public boolean claimFromGone(SlotView seen, Ownership owner) {
        return db.write("claim from gone " + seen.id() + "@" + seen.epoch() + " by " + owner.node(), () -> {
            SlotDoc doc = db.slots.get(seen.id());
            boolean matches = seen.owner() != null && seen.instance() != null && doc != null && doc.epoch == seen.epoch()
                    && doc.timeMs == seen.time().toEpochMilli() && seen.owner().ip().equals(doc.ip)
                    && Objects.equals(seen.owner().port(), doc.port) && seen.instance().equals(doc.instance)
                    && doc.lateMs != null && doc.lateMs > 0 && doc.timeMs + doc.lateMs < db.serverNowMs();
            if (matches) {
                take(doc, owner);
                db.fastTakeovers++;
            }
            return matches;
        });
    }

    @Override
    public boolean reclaim(SlotView seen, Ownership owner) {
        return db.write("reclaim " + seen.id() + "@" + seen.epoch() + " by " + owner.node(), () -> {
            SlotDoc doc = db.slots.get(seen.id());
            boolean matches = doc != null && doc.epoch == seen.epoch() && owner.node().ip().equals(doc.ip)
                    && Objects.equals(owner.node().port(), doc.port) && Objects.equals(seen.instance(), doc.instance);
            if (matches) {
                take(doc, owner);
            }
            return matches;
        });
    }

    private void take(SlotDoc doc, Ownership owner) {
        doc.ip = owner.node().ip();
        doc.port = owner.node().port();
        doc.instance = owner.instance();
        doc.leaseMs = owner.lease().toMillis();
        doc.lateMs = owner.late() == null ? null : owner.late().toMillis();
        doc.epoch++;
        doc.timeMs = db.serverNowMs();
        db.touchSlot(doc.id);
    }

    @Override
    public boolean renew(String slotId, long epoch, Ownership owner) {
        return db.write("renew " + slotId + "@" + epoch + " by " + owner.node(), () -> {
            SlotDoc doc = db.slots.get(slotId);
            boolean matches = doc != null && doc.epoch == epoch && Objects.equals(owner.instance(), doc.instance);
            if (matches) {
                doc.leaseMs = owner.lease().toMillis();
                doc.lateMs = owner.late() == null ? null : owner.late().toMillis();
                doc.timeMs = db.serverNowMs();
                db.touchSlot(slotId);
            }
            return matches;
        });
    }

    @Override
    public boolean release(String slotId, long epoch, String instance) {
        return db.write("release " + slotId + "@" + epoch, () -> {
            SlotDoc doc = db.slots.get(slotId);
            boolean matches = doc != null && doc.epoch == epoch && Objects.equals(instance, doc.instance);
            if (matches) {
                doc.ip = null;
                doc.port = null;
                doc.instance = null;
                doc.lateMs = null;
                doc.timeMs = 0;
                doc.drain = null;
                db.touchSlot(slotId);
            }
            return matches;
        });
    }

    @Override
    public boolean revoke(SlotView seen) {
        return db.write("revoke " + seen.id() + "@" + seen.epoch(), () -> {
            SlotDoc doc = db.slots.get(seen.id());
            boolean matches = doc != null && doc.epoch == seen.epoch() && doc.ip != null;
            if (matches) {
                doc.ip = null;
                doc.port = null;
                doc.instance = null;
                doc.lateMs = null;
                doc.epoch++;
                db.touchSlot(doc.id);
            }
            return matches;
        });
    }

    @Override
    public long markDrain(NodeId node, String instance, boolean force) {
        return db.write("mark drain of " + node, () -> {
            long marked = 0;
            for (SlotDoc doc : db.slots.values()) {
                if (node.ip().equals(doc.ip) && Objects.equals(node.port(), doc.port) && instance.equals(doc.instance)) {
                    doc.drain = new SlotView.Drain(instance, force);
                    db.touchSlot(doc.id);
                    marked++;
                }
            }
            return marked;
        });
    }

    @Override
    public void touch(String slotId) {
        db.write("touch " + slotId, () -> {
            SlotDoc doc = db.slots.get(slotId);
            if (doc != null) {
                doc.changes++;
                db.touchSlot(slotId);
            }
            return null;
        });
    }

    @Override
    public boolean create(String slotId) {
        return db.write("create " + slotId, () -> {
            if (db.slots.containsKey(slotId)) {
                return false;
            }
            SlotDoc doc = new SlotDoc();
            doc.id = slotId;
            db.slots.put(slotId, doc);
            db.touchSlot(slotId);
            return true;
        });
    }
}
