package io.standby.slot.internal;

import io.standby.slot.Durations;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases this node holds, and every step that keeps or ends one: a slot won becomes a lease; each heartbeat renews
 * every lease; a lease with no acknowledged renewal for the late mark pauses its robots, and one for the lease minus
 * the fence margin ends; a release ends a lease before its slot is freed. The listener hears of each step of one lease
 * in order.
 *
 * <p>The poll thread acquires and (draining) releases, the renewal thread renews, the fence thread checks deadlines,
 * and a stop releases: any of them may run at once, so a lease's own lock orders its listener calls, and a lease leaves
 * the book only after the listener heard of its end.
 */
final class LeaseBook {

    private static final Logger log = LoggerFactory.getLogger(LeaseBook.class);

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final SlotListener listener;
    private final Fanout fanout;
    private final Outage outage;
    private final OwnerBeats beats;
    private final long validNanos;
    /** When a lease pauses, after its last acknowledged renewal was sent; Long.MAX_VALUE without fast failover. */
    private final long pauseNanos;

    private final Map<String, OwnedLease> owned = new ConcurrentHashMap<>();
    private final OwnerLinks ownerLinks;

    LeaseBook(ProtocolSetup setup, Outage outage) {
        this.store = setup.store();
        this.config = setup.config();
        this.clock = setup.clock();
        this.listener = setup.listener();
        this.fanout = setup.fanout();
        this.outage = outage;
        this.validNanos =
                config.timing().lease().minus(config.timing().fenceMargin()).toNanos();
        this.pauseNanos = setup.fastFailover()
                ? config.timing().late().minus(config.timing().lateMargin()).toNanos()
                : Long.MAX_VALUE;
        this.ownerLinks = setup.ownerLinks();
        this.beats = new OwnerBeats(setup, outage);
    }

    /** The beats this process writes, and the identity it writes them with. */
    OwnerBeats beats() {
        return beats;
    }

    /** The leases that have not ended, by slot id. */
    List<Lease> leases() {
        return live().stream().map(Lease.class::cast).toList();
    }

    List<String> heldSlotIds() {
        return live().stream().map(Lease::slotId).toList();
    }

    /** The leases that have not ended, by slot id. */
    List<OwnedLease> live() {
        return owned.values().stream()
                .filter(lease -> lease.endReason() == null)
                .sorted(Comparator.comparing(Lease::slotId, SlotIds.NATURAL))
                .toList();
    }

    /** The first lease by slot id that has not ended. */
    Optional<OwnedLease> firstLive() {
        return live().stream().findFirst();
    }

    /** Whether the slot is this node's: a lease that has not ended, or one whose listener still winds it down. */
    boolean holds(String slotId) {
        return owned.containsKey(slotId);
    }

    /** The slots this node counts as its own, ended leases still winding down included: what takes room. */
    int size() {
        return owned.size();
    }

    /** Whether every lease ended: true also with none. */
    boolean allEnded() {
        return owned.values().stream().allMatch(lease -> lease.endReason() != null);
    }

    /** The slot won, as it was claimed ({@code written}: its beat, and whether it carried the late mark). */
    OwnedLease acquire(SlotView claimed, long claimSentNanos, SlotStore.Ownership written) {
        OwnedLease lease = new OwnedLease(
                new OwnedLease.Identity(claimed.id(), claimed.epoch() + 1, config.node()),
                new OwnedLease.Timing(validNanos, pauseNanos),
                clock,
                new OwnedLease.Claim(claimSentNanos, written.beat(), written.late() != null),
                ownerLinks);
        log.info("Acquired {} at epoch {}", claimed.id(), lease.epoch());
        // Held while the listener runs, so that a loss found meanwhile is reported after acquired().
        synchronized (lease) {
            owned.put(claimed.id(), lease);
            Notify.safely("acquired", lease, () -> listener.acquired(lease, claimed));
        }
        return lease;
    }

    /** Tells the listener how the slots this node holds look now. */
    void observe(List<SlotView> slots) {
        for (SlotView slot : slots) {
            OwnedLease lease = owned.get(slot.id());
            if (lease != null && lease.endReason() == null && lease.epoch() == slot.epoch()) {
                Notify.safely("observed", lease, () -> listener.observed(lease, slot));
            }
        }
    }

    /**
     * Renews every lease this node holds ({@link SlotStore#renewAll}: its owner document, then one command for every
     * slot), each slot at its own epoch, so each lease keeps its own fence. A lease whose slot the renewal did not
     * match ends at once, with the reason its slot shows. If the database does not answer, no lease counts as renewed:
     * the fence deadline decides when to give up.
     */
    void renewAll() {
        List<OwnedLease> leases = owned.values().stream()
                .filter(lease -> lease.endReason() == null)
                .toList();
        if (leases.isEmpty()) {
            return;
        }
        Map<String, Long> held = new LinkedHashMap<>();
        leases.forEach(lease -> held.put(lease.slotId(), lease.epoch()));
        SlotStore.Ownership ownership = beats.withNewBeat();
        if (ownership.late() != null) {
            leases.forEach(lease -> lease.sendingLate(ownership.beat()));
        }
        long sent = clock.nanoTime();
        SlotStore.Renewals renewals;
        try {
            renewals = store.renewAll(held, ownership);
        } catch (RuntimeException e) {
            outage.failed("Renewal of " + String.join(", ", held.keySet()) + " failed", e);
            leases.forEach(lease -> Notify.safely("renewalFailed", lease, () -> listener.renewalFailed(lease)));
            return;
        }
        outage.succeeded();
        long answered = clock.nanoTime();
        for (OwnedLease lease : leases) {
            if (renewals.renewed().contains(lease.slotId())) {
                renewed(lease, sent, answered, ownership.beat());
            } else {
                lose(lease, whyGone(lease, renewals.others().get(lease.slotId())));
            }
        }
    }

    private void renewed(OwnedLease lease, long sent, long answered, long beat) {
        synchronized (lease) {
            // An answer after the late point: the robots may have seen the lease invalid, so they pause
            // (if the fence check has not paused them yet) and resume, under one rule.
            pauseIfLate(lease, answered);
            if (!lease.renewed(sent, answered, beat)) {
                lose(lease, LossReason.FENCED);
                return;
            }
            if (lease.resumeIfTimely(answered)) {
                log.info("Renewed {} at epoch {} after a pause: its robots start again", lease.slotId(), lease.epoch());
                Notify.safely("resumed", lease, () -> listener.resumed(lease));
            }
        }
        Notify.safely("renewed", lease, () -> listener.renewed(lease, Duration.ofNanos(answered - sent)));
    }

    /**
     * Pauses a lease whose late point has passed: other nodes may take its slot over early from here on, if a connect
     * to this node is refused. Callers hold the lease's lock, so that its listener hears paused and resumed in order.
     */
    private void pauseIfLate(OwnedLease lease, long now) {
        if (lease.pauseIfDue(now)) {
            if (lease.blockedByWatch(now)) {
                ownerLinks.stats().pauses.incrementAndGet();
                log.warn(
                        "A watch link of {} ended and no renewal outran its deadline: pausing the robots of {}; it "
                                + "keeps the slot "
                                + "and resumes them when a renewal is acknowledged",
                        config.node(),
                        lease.slotId());
                Notify.safely("paused", lease, () -> listener.paused(lease));
                return;
            }
            log.warn(
                    "No renewal of {} acknowledged for {} (late mark {} minus {}): pausing its robots; it keeps the "
                            + "slot "
                            + "until its lease ends and resumes them when a renewal is acknowledged",
                    lease.slotId(),
                    Durations.format(Duration.ofNanos(pauseNanos)),
                    Durations.format(config.timing().late()),
                    Durations.format(config.timing().lateMargin()));
            Notify.safely("paused", lease, () -> listener.paused(lease));
        }
    }

    /** Why a renewal did not match: an operator released the slot, another node took it, or it is gone. */
    private static LossReason whyGone(OwnedLease lease, SlotView now) {
        if (now == null) {
            return LossReason.VANISHED;
        }
        return now.owner() == null && now.epoch() > lease.epoch() ? LossReason.REVOKED : LossReason.TAKEN;
    }

    /**
     * Ends every lease whose local deadline has passed: no renewal succeeded for {@code lease - fenceMargin} since the
     * last successful one was sent. Uses only this node's monotonic clock, so it works while the database is
     * unreachable.
     */
    void checkFences() {
        long now = clock.nanoTime();
        for (OwnedLease lease : owned.values()) {
            if (lease.endReason() == null && lease.deadlinePassed(now)) {
                lose(lease, LossReason.FENCED);
            } else if (lease.mayPause() && lease.endReason() == null && !lease.paused()) {
                synchronized (lease) {
                    pauseIfLate(lease, now);
                }
            }
        }
    }

    /** Ends every lease at once, as if its deadline had passed: this node can no longer vouch for them. */
    void fenceAll() {
        for (OwnedLease lease : owned.values()) {
            if (lease.endReason() == null) {
                lose(lease, LossReason.FENCED);
            }
        }
    }

    /** Releases every lease that has not ended, in parallel (see {@link Fanout}); {@code first} runs before any. */
    void releaseAll(Runnable first) {
        List<Runnable> releases = owned.values().stream()
                .filter(l -> l.endReason() == null)
                .<Runnable>map(lease -> () -> release(lease))
                .toList();
        if (!releases.isEmpty()) {
            first.run();
            fanout.runAll(releases);
        }
    }

    /**
     * Lets the listener stop the slot's work while renewals go on, ends the lease, then releases the slot (owner
     * cleared, epoch kept, time set to 1970) so that a standby takes it at its next poll.
     */
    void release(OwnedLease lease) {
        synchronized (lease) {
            lease.releasing();
        }
        Notify.safely("releasing", lease, () -> listener.releasing(lease));
        // The lease ends, and the listener hears so, before the slot is released: nobody can take the
        // slot while this node still counts it as its own.
        boolean endedHere = lease.end(LossReason.RELEASED);
        if (endedHere) {
            reportLoss(lease, LossReason.RELEASED);
        }
        // A lease that fenced itself meanwhile is still ours in the database: releasing it lets a standby
        // start at once instead of waiting out the lease. The compare-and-set on epoch and instance makes
        // this harmless if anyone took the slot since.
        if (endedHere || lease.endReason() == LossReason.FENCED) {
            try {
                if (store.release(lease.slotId(), lease.epoch(), config.instance())) {
                    log.info("Released {} at epoch {}", lease.slotId(), lease.epoch());
                }
            } catch (RuntimeException e) {
                log.warn(
                        "Could not release {}; it becomes claimable when its lease expires: {}",
                        lease.slotId(),
                        e.toString());
            }
        }
    }

    private void lose(OwnedLease lease, LossReason reason) {
        if (lease.end(reason)) {
            log.warn("Lost {} at epoch {}: {}", lease.slotId(), lease.epoch(), reason.description());
            reportLoss(lease, reason);
        }
    }

    private void reportLoss(OwnedLease lease, LossReason reason) {
        synchronized (lease) {
            Notify.safely("lost", lease, () -> listener.lost(lease, reason));
        }
        // Removed only after the listener returned, so the slot is not claimed again on this node
        // before the work of the old lease has stopped.
        owned.remove(lease.slotId(), lease);
    }
}
