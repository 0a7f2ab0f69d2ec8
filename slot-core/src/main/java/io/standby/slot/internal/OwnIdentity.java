package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotView;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slots held under this node's own identity (its ip:port) by a process this one does not count as its own lease: which
 * of them it takes back at once, and which belong to a twin it must wait out. Only a process that holds a bound address
 * proves anything: without one, another process with this identity may be alive and running its robots, and two such
 * processes would take the slots back from each other at every poll. Poll thread only (the join runs before the first
 * poll).
 */
final class OwnIdentity {

    private static final Logger log = LoggerFactory.getLogger(OwnIdentity.class);

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final LeaseBook book;
    private final Outage outage;
    /** Instances seen holding this identity that this process cannot take back from, warned about once each. */
    private final Set<String> twinsWarned = new HashSet<>();
    /**
     * The other instances of this identity on this host that held slots at this process's first read of them, if it
     * bound its address before: the earlier processes that binding proved gone. Empty without that proof; null before
     * the first read.
     */
    private Set<String> earlier;

    OwnIdentity(ProtocolSetup setup, LeaseBook book, Outage outage) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.book = book;
        this.outage = outage;
    }

    /**
     * The join's check: refuses to go on if this node's ip:port holds a live lease of a process it cannot take back
     * from, before the node writes anything.
     *
     * @param held the slots held under this node's identity
     * @throws IllegalStateException naming the address and the instance that holds the lease
     */
    void refuseLiveTwin(List<SlotView> held) {
        remember(held);
        for (SlotView slot : held) {
            if (heldByTwin(slot) && !slot.expired()) {
                throw new IllegalStateException(config.node() + " holds a live lease on " + slot.id() + " from "
                        + twinOf(slot) + ": "
                        + (onThisHost(slot)
                                ? "bind the address before starting the node, or give every node its own ip:port"
                                : "give every node its own ip:port"));
            }
        }
    }

    /**
     * Held under this ip:port by this process, or by an earlier process on this host that binding the address proved
     * gone. A bound process proves gone only the processes that were there at its first read: a later process with its
     * address cannot have bound it, so it proves nothing.
     */
    boolean takenBackAtOnce(SlotView slot) {
        if (!config.node().equals(slot.owner())) {
            return false;
        }
        Set<String> provenGone = earlier;
        return config.instance().equals(slot.instance()) || provenGone != null && provenGone.contains(slot.instance());
    }

    /** Held under this ip:port by another process that this one cannot take back from: it waits out the lease. */
    boolean heldByTwin(SlotView slot) {
        return config.node().equals(slot.owner()) && !takenBackAtOnce(slot);
    }

    /**
     * Slots held under this node's ip:port that this process does not count as its own and takes back without waiting
     * (see {@link #takenBackAtOnce}): held by this process after a claim whose reply was lost or a lease that fenced
     * itself, or by an earlier process on this host that binding the address proved gone. Nobody else can be running
     * their robots. Without room, it releases them instead. A slot held under this ip:port by any other process is
     * someone else's: it is claimed like any other, once its lease has run out. Returns the number taken back.
     */
    int takeBack(List<SlotView> slots, BooleanSupplier room) {
        remember(slots);
        int won = 0;
        for (SlotView slot : slots) {
            if (heldByTwin(slot) && !slot.expired() && twinsWarned.add(slot.instance())) {
                log.warn(
                        "{} is held by {} under this node's identity by {}: this node waits out that lease; "
                                + "give every node its own ip:port",
                        slot.id(),
                        config.node(),
                        twinOf(slot));
            }
            if (!takenBackAtOnce(slot) || book.holds(slot.id())) {
                continue;
            }
            try {
                if (room.getAsBoolean()) {
                    SlotStore.Ownership me = book.beats().withNewBeat();
                    long sent = clock.nanoTime();
                    if (store.reclaim(slot, me)) {
                        log.info(
                                "Took back {} held by instance {} of this node ({}), epoch {}",
                                slot.id(),
                                slot.instance(),
                                config.node(),
                                slot.epoch() + 1);
                        book.acquire(slot, sent, me);
                        won++;
                    }
                } else if (store.release(slot.id(), slot.epoch(), slot.instance())) {
                    log.info(
                            "Released {}, held by instance {} of this node, which has no room for it",
                            slot.id(),
                            slot.instance());
                }
            } catch (RuntimeException e) {
                outage.failed("Cannot take back " + slot.id(), e);
            }
        }
        return won;
    }

    /**
     * Once, at the first read of the slots: the other instances of this identity on this host that binding proved gone.
     */
    private void remember(List<SlotView> slots) {
        if (earlier == null) {
            earlier = !config.addressBound()
                    ? Set.of()
                    : slots.stream()
                            .filter(slot -> config.node().equals(slot.owner())
                                    && onThisHost(slot)
                                    && !config.instance().equals(slot.instance()))
                            .map(SlotView::instance)
                            .collect(Collectors.toUnmodifiableSet());
        }
    }

    private boolean onThisHost(SlotView slot) {
        return config.host() != null && config.host().equals(NodeConfig.hostOf(slot.instance()));
    }

    /** Who holds a twin's slot, for a log line or an error. */
    private String twinOf(SlotView slot) {
        return onThisHost(slot)
                ? "another process on this host (instance " + slot.instance() + "), which "
                        + (config.addressBound()
                                ? "started after this one bound the address, so never bound it"
                                : "this one cannot prove gone since it did not bind the address itself")
                : "another host (instance " + slot.instance() + "); this node is on " + config.host();
    }
}
