package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's drain: the node claims nothing more and hands its slots to standbys one a poll, each once another live
 * node has room for it, then may stop. Poll thread only, but {@link #draining()} and {@link #drained()}.
 */
final class Drain {

    private static final Logger log = LoggerFactory.getLogger(Drain.class);

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final Membership membership;
    private final boolean withMembership;
    private final LeaseBook book;
    private final SlotReads reads;
    /** Stops the claims and takes this node out of every plan: what a drain does first. */
    private final Runnable leavePlans;

    private volatile boolean draining;
    /** Whether the operator forced the drain: slots go even with nowhere to go. */
    private boolean forced;
    /** Whether a drain waits for room, so that it says so once. */
    private boolean waitingForRoom;
    /** The slot a drain released last and waits to see taken. */
    private String inTransit;

    private long inTransitSince;

    Drain(ProtocolSetup setup, Membership membership, LeaseBook book, SlotReads reads, Runnable leavePlans) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.membership = membership;
        this.withMembership = setup.hasMembership();
        this.book = book;
        this.reads = reads;
        this.leavePlans = leavePlans;
    }

    /** Whether this node drains: it claims nothing and hands its slots over, one a poll. */
    boolean draining() {
        return draining;
    }

    /** Whether a drain has handed every slot over: the node may stop. */
    boolean drained() {
        return draining && inTransit == null && book.allEnded();
    }

    /**
     * Whether an operator asked this node to drain, as the slots just read show it: the request is put on every slot
     * the node holds ({@link SlotStore#markDrain}), which it reads at every poll anyway, so it is seen within a poll at
     * no cost; the registry write that also carries it is up to ten heartbeats away. Only with a membership: without a
     * registry no room can be judged.
     */
    void notice(List<SlotView> slots) {
        for (SlotView slot : slots) {
            if (withMembership && book.holds(slot.id()) && slot.drainAsked(config.instance())) {
                if (!draining) {
                    start();
                }
                if (slot.drain().force() && !forced) {
                    log.warn("The drain is forced: this node hands its slots over even if no other node has room for "
                            + "them");
                    forced = true;
                }
            }
        }
    }

    void start() {
        log.info("An operator asked this node to drain: it hands its slots to standbys one at a time, then stops");
        draining = true;
        // Out of every plan before the first release, as in a graceful stop.
        leavePlans.run();
    }

    /**
     * One step of a drain: once the slot handed over last is owned by someone else (or two polls have passed), releases
     * the next one gracefully, its robots stopping first, if some other live node has room for it ({@link DrainRoom}).
     * Each slot is taken by a standby at its next poll: a released slot needs no waiting. So a slot is owned elsewhere
     * about two polls after the drain was asked: one for this node to see it, one for the standby.
     *
     * <p>Without room the node keeps the slot, serving it, and waits, checking again at every poll, for as long as it
     * takes: releasing would leave the slot unserved (the void the drain exists to avoid), and giving up would undo the
     * operator's request behind their back. Any bound would do one or the other. The node shows DRAINING meanwhile and
     * says why in its log; the operator can start a node with room, force the drain, or stop the node. Waiting costs a
     * registry read and a second slot read a poll, on this node only. A forced drain releases without looking.
     */
    void step(List<SlotView> slots) {
        if (inTransit != null) {
            boolean taken = takenElsewhere(slots, inTransit);
            if (!taken
                    && clock.nanoTime() - inTransitSince
                            < 2 * config.timing().poll().toNanos()) {
                return;
            }
            inTransit = null;
        }
        Optional<OwnedLease> next = book.firstLive();
        if (next.isEmpty() || !forced && !roomElsewhere()) {
            return;
        }
        log.info("Draining: handing {} over", next.get().slotId());
        inTransit = next.get().slotId();
        inTransitSince = clock.nanoTime();
        book.release(next.get());
    }

    /**
     * Whether the slot is owned by another node now: as the poll read it, or, since a poll does not read a slot a live
     * owner holds, by one read of it. Unreadable: not yet, as far as this node can tell.
     */
    private boolean takenElsewhere(List<SlotView> slots, String slotId) {
        Optional<SlotView> slot =
                slots.stream().filter(s -> s.id().equals(slotId)).findFirst();
        if (slot.isEmpty()) {
            try {
                slot = store.read(slotId);
            } catch (RuntimeException e) {
                return false;
            }
        }
        return slot.filter(s -> s.owner() != null && !config.node().equals(s.owner()))
                .isPresent();
    }

    /**
     * Whether another live node has room for one more slot: the registry, then the slots again, so that every slot a
     * registered node has won counts against its room. Logs when a drain starts and stops waiting. Unreadable registry
     * or slots: no room, as far as this node can tell.
     */
    private boolean roomElsewhere() {
        membership.refresh(Duration.ZERO);
        List<SlotView> slots = reads.readAndObserve();
        DrainRoom room = slots == null ? new DrainRoom(0, 0) : DrainRoom.of(config.node(), membership.live(), slots);
        if (room.room() > 0) {
            if (waitingForRoom) {
                log.info("Draining: another node has room now; handing the next slot over");
                waitingForRoom = false;
            }
            return true;
        }
        if (!waitingForRoom) {
            log.warn(
                    "Draining: no other live node has room ({} free, {} slot(s) already waiting for one); this node "
                            + "keeps "
                            + "serving its slots until one has, or until the drain is forced",
                    room.free(),
                    room.waiting());
            waitingForRoom = true;
        }
        return false;
    }
}
