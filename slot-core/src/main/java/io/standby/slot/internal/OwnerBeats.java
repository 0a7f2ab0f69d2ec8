package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The beats this process writes, and the identity it writes them with. Every write of this process (a renewal, a claim,
 * a take-back, the owner document) carries a beat, announced on every watch link before the write is sent, so a standby
 * can tell which writes a link had seen when it ended.
 */
final class OwnerBeats {

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final Outage outage;
    private final OwnerLinks ownerLinks;
    private final SlotStore.Ownership me;
    /** The last beat this process wrote; every write takes the next (see {@link SlotStore.Ownership#beat()}). */
    private final AtomicLong beats = new AtomicLong();
    /** The owner document's beat written for claims, and when; poll thread only. */
    private Stamp stamp;

    OwnerBeats(ProtocolSetup setup, Outage outage) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.outage = outage;
        this.ownerLinks = setup.ownerLinks();
        // With fast failover, the late mark is written into the slot, and this owner keeps to it: it pauses
        // its robots before its heartbeat is that old. Other nodes take a slot over early only from an
        // owner that wrote one, by the mark it wrote, so nodes with other settings never misjudge it.
        // While a watch link covers this owner, its writes carry none (see current()).
        this.me = new SlotStore.Ownership(
                        config.node(),
                        config.instance(),
                        config.timing().lease(),
                        setup.fastFailover() ? config.timing().late() : null)
                .withWatch(
                        ownerLinks.isOn()
                                ? new SlotStore.Watch(ownerLinks.port(), ownerLinks.watchLease())
                                : SlotStore.Watch.NONE);
        if (ownerLinks.isOn()) {
            ownerLinks.bind(beats::get, config.timing().lease());
        }
    }

    /** A new beat, announced on every watch link before any write carries it. */
    private long nextBeat() {
        long beat = beats.incrementAndGet();
        ownerLinks.announce(beat);
        return beat;
    }

    /**
     * How this node writes itself now: with its late mark (if it has one), unless a live watch link covers it. A
     * standby with a link takes over a dead owner faster than the mark would, so there the mark would only pause the
     * robots in every database outage longer than it; without it an outage pauses nothing before the lease's deadline,
     * and a standby without a link takes over a crashed owner after the lease instead of the mark.
     */
    private SlotStore.Ownership current(long beat) {
        SlotStore.Ownership now = me.withBeat(beat);
        return now.late() != null && ownerLinks.covered() ? now.withoutLate() : now;
    }

    /**
     * How this node writes itself into a slot it renews, takes back, or claims without a {@link #claimStamp}, with a
     * beat no other write of this process carries: each renewal's is new, and such a claim's is never in the owner
     * document.
     */
    SlotStore.Ownership withNewBeat() {
        return current(nextBeat());
    }

    /** How this node writes itself into a slot it claims with {@code stamp}'s beat. */
    SlotStore.Ownership withBeatOf(Stamp stamp) {
        return current(stamp.beat());
    }

    /** A beat the owner document shows, and when the write that put it there was sent. */
    record Stamp(long beat, long sentNanos) {}

    /**
     * The beat for the claims this node makes now, and the moment their leases count from: a write of the owner
     * document, unless one was sent less than a quarter heartbeat ago. A standby that watched the document stand still
     * at that beat for a lease may take a slot claimed with it, as it may one renewed with it; so the lease counts from
     * that write's send, not from the claim's, and runs a little short. Null if the write failed: the claim then writes
     * a beat of its own, which no owner document shows (a standby watches that slot itself), and counts from its own
     * send.
     */
    Stamp claimStamp() {
        long now = clock.nanoTime();
        // Not a beat sent on a watch link that has ended: a slot claimed with it would pause at once.
        if (stamp != null
                && now - stamp.sentNanos() < config.timing().heartbeat().toNanos() / 4
                && stamp.beat() > ownerLinks.endedFloor()) {
            return stamp;
        }
        long beat = nextBeat();
        try {
            store.beat(me.withBeat(beat));
        } catch (RuntimeException e) {
            outage.failed("Writing the owner document failed", e);
            return null;
        }
        stamp = new Stamp(beat, now);
        return stamp;
    }
}
