package io.standby.slot.internal;

import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import org.bson.Document;

import java.time.Instant;
import java.util.Date;

/**
 * How this node's slots change hands, as events: {@code claimed} (a free or released slot),
 * {@code took-over} (from an owner whose lease ran out, with that owner and its last heartbeat),
 * {@code took-back} (from an earlier process of this node), {@code released} and {@code lost} (with the
 * reason). Only queues ({@link EventLog#record}).
 */
public final class EventRecorder implements SlotListener {

    private final EventLog log;

    public EventRecorder(EventLog log) {
        this.log = log;
    }

    @Override
    public void acquired(Lease lease, SlotView claimed) {
        Document event = event(lease);
        if (claimed.owner() == null) {
            event.put("type", "claimed");
        } else {
            event.put("type", claimed.owner().equals(lease.node()) ? "took-back" : "took-over");
            event.put("from", claimed.owner().toString());
            if (!claimed.time().equals(Instant.EPOCH)) {
                event.put("heartbeat", Date.from(claimed.time()));
            }
        }
        log.record(event);
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        Document event = event(lease).append("type", reason == LossReason.RELEASED ? "released" : "lost");
        if (reason != LossReason.RELEASED) {
            event.append("reason", reason.name().toLowerCase());
        }
        log.record(event);
    }

    private static Document event(Lease lease) {
        return new Document("slot", lease.slotId()).append("epoch", lease.epoch()).append("node", lease.node().toString());
    }
}
