package io.standby.slot.internal;

import static io.standby.slot.EventFields.EPOCH;
import static io.standby.slot.EventFields.EVIDENCE;
import static io.standby.slot.EventFields.FROM;
import static io.standby.slot.EventFields.HEARTBEAT;
import static io.standby.slot.EventFields.HOW;
import static io.standby.slot.EventFields.NODE;
import static io.standby.slot.EventFields.REASON;
import static io.standby.slot.EventFields.SLOT;
import static io.standby.slot.EventFields.TYPE;

import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import io.standby.slot.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bson.Document;

/**
 * How this node's slots change hands, as events: {@code claimed} (a free or released slot), {@code took-over} (from an
 * owner whose lease ran out, whose process was found gone, or whose watch link died: {@code how} is {@code expired},
 * {@code owner-gone} or {@code link}, with that owner, its last heartbeat and the evidence), {@code took-back} (from an
 * earlier process of this node), {@code released} and {@code lost} (with the reason). Only queues
 * ({@link EventLog#record}).
 */
public final class EventRecorder implements SlotListener {

    private final EventLog log;

    public EventRecorder(EventLog log) {
        this.log = log;
    }

    @Override
    public void acquired(Lease lease, SlotView claimed) {
        if (claimed.owner() == null) {
            log.record(event(lease).append(TYPE, "claimed"));
        } else if (claimed.owner().equals(lease.node())) {
            log.record(from(event(lease).append(TYPE, "took-back"), claimed));
        }
        // A take-over is recorded by tookOver, which knows how it came about.
    }

    @Override
    public void tookOver(Lease lease, SlotView claimed, Duration unowned, Takeover how, String evidence) {
        log.record(from(event(lease).append(TYPE, "took-over"), claimed)
                .append(HOW, how.name().toLowerCase().replace('_', '-'))
                .append(EVIDENCE, evidence));
    }

    private static Document from(Document event, SlotView claimed) {
        event.put(FROM, claimed.owner().toString());
        if (!claimed.time().equals(Instant.EPOCH)) {
            event.put(HEARTBEAT, Date.from(claimed.time()));
        }
        return event;
    }

    @Override
    public void lost(Lease lease, LossReason reason) {
        Document event = event(lease).append(TYPE, reason == LossReason.RELEASED ? "released" : "lost");
        if (reason != LossReason.RELEASED) {
            event.append(REASON, reason.name().toLowerCase());
        }
        log.record(event);
    }

    @Override
    public void paused(Lease lease) {
        log.record(event(lease).append(TYPE, "paused"));
    }

    @Override
    public void resumed(Lease lease) {
        log.record(event(lease).append(TYPE, "resumed"));
    }

    private static Document event(Lease lease) {
        return new Document(SLOT, lease.slotId())
                .append(EPOCH, lease.epoch())
                .append(NODE, lease.node().toString());
    }
}
