package io.standby.slot.internal;

import io.standby.slot.Durations;
import io.standby.slot.Lease;
import io.standby.slot.LossReason;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The decisions of the slot protocol for one node, without threads of its own: {@link #poll()},
 * {@link #renewAll()}, {@link #checkFences()} and {@link #releaseAll()} are steps that
 * {@link io.standby.slot.SlotNode} schedules and that tests call directly with a hand-driven clock.
 *
 * <p>{@link #poll()} runs on one thread at a time; the other steps may run concurrently with it and
 * with each other.
 */
public final class SlotProtocol {

    private static final Logger log = LoggerFactory.getLogger(SlotProtocol.class);

    /** Pauses the poll thread; tests pass one that does not sleep. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /**
     * Runs the renewals of one heartbeat and returns when all are done. A node runs them in parallel, so
     * that one slow renewal never delays another past its deadline; tests run them one after another.
     */
    @FunctionalInterface
    public interface Fanout {
        void runAll(List<Runnable> tasks);

        Fanout SEQUENTIAL = tasks -> tasks.forEach(Runnable::run);

        /** One virtual thread per task. */
        Fanout PARALLEL = tasks -> {
            if (tasks.size() == 1) {
                tasks.getFirst().run();
                return;
            }
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                tasks.forEach(threads::submit);
            }
        };
    }

    private final SlotStore store;
    private final NodeConfig config;
    private final MonotonicClock clock;
    private final SlotListener listener;
    private final Sleeper sleeper;
    private final Fanout fanout;
    private final SlotStore.Ownership me;
    private final long validNanos;
    private final Map<String, OwnedLease> owned = new ConcurrentHashMap<>();
    private final Observations observations = new Observations();
    private final Outage outage = new Outage();
    private volatile boolean claiming = true;
    /** Instances of another host seen holding this identity, warned about once each; poll thread only. */
    private final java.util.Set<String> twinsWarned = new java.util.HashSet<>();

    public SlotProtocol(SlotStore store, NodeConfig config, MonotonicClock clock, SlotListener listener, Sleeper sleeper) {
        this(store, config, clock, listener, sleeper, Fanout.SEQUENTIAL);
    }

    public SlotProtocol(SlotStore store, NodeConfig config, MonotonicClock clock, SlotListener listener, Sleeper sleeper,
                        Fanout fanout) {
        this.store = store;
        this.config = config;
        this.clock = clock;
        this.listener = listener;
        this.sleeper = sleeper;
        this.fanout = fanout;
        this.me = new SlotStore.Ownership(config.node(), config.instance(), config.timing().lease());
        this.validNanos = config.timing().lease().minus(config.timing().fenceMargin()).toNanos();
    }

    public NodeConfig config() {
        return config;
    }

    /** The leases this node holds and that have not ended, by slot id. */
    public List<Lease> leases() {
        return owned.values().stream()
                .filter(lease -> lease.endReason() == null)
                .sorted(Comparator.comparing(Lease::slotId, SlotIds.NATURAL))
                .map(Lease.class::cast)
                .toList();
    }

    /**
     * Reads every slot, takes back the slots still held under this node's identity, then claims
     * claimable slots one at a time while there is room. Returns the number of slots won.
     *
     * @throws InterruptedException if the thread is interrupted while it waits for its turn to claim
     */
    public int poll() throws InterruptedException {
        List<SlotView> slots = readAndObserve();
        if (slots == null) {
            return 0;
        }
        reportOwned(slots);
        int won = takeBackOwn(slots);
        while (claiming && owned.size() < config.maxSlots()) {
            List<SlotView> candidates = claimable(slots);
            if (candidates.isEmpty()) {
                break;
            }
            // Seed 004's preemption: a node that owns fewer slots tries first, so that the least-loaded
            // node wins a race. The wait stays below one poll interval, so a slot is never left unserved
            // longer than lease + two polls while some node has room.
            int load = owned.size();
            if (load > 0) {
                sleeper.sleep(config.timing().poll().multipliedBy(load).dividedBy(config.maxSlots()));
            }
            if (!claiming || !claimOne(candidates)) {
                break;
            }
            won++;
            if (owned.size() < config.maxSlots()) {
                slots = readAndObserve();
                if (slots == null) {
                    break;
                }
            }
        }
        return won;
    }

    /** Tells the listener how the slots this node holds look now. */
    private void reportOwned(List<SlotView> slots) {
        for (SlotView slot : slots) {
            OwnedLease lease = owned.get(slot.id());
            if (lease != null && lease.endReason() == null && lease.epoch() == slot.epoch()) {
                notify("observed", lease, () -> listener.observed(lease, slot));
            }
        }
    }

    private List<SlotView> readAndObserve() {
        List<SlotView> slots;
        try {
            slots = store.readAll();
        } catch (RuntimeException e) {
            outage.failed("Cannot read slots", e);
            return null;
        }
        outage.succeeded();
        // Taken after the read returned: no earlier than the moment each document got its version.
        observations.update(slots, clock.nanoTime());
        return slots;
    }

    /**
     * Slots held under this node's ip:port on this host that this process does not count as its own:
     * held by an earlier process with this identity (which binding the address proved gone), or by this
     * process after a claim whose reply was lost or a lease that fenced itself. Taking them back needs no
     * waiting, because nobody else can be running their robots. A slot held under this ip:port from
     * another host is someone else's: it is claimed like any other, once its lease has run out.
     */
    private int takeBackOwn(List<SlotView> slots) {
        int won = 0;
        for (SlotView slot : slots) {
            if (heldByTwin(slot) && !slot.expired() && twinsWarned.add(slot.instance())) {
                log.warn("{} is held by {} under this node's identity from another host (instance {}); this node is on {}: "
                        + "give every node its own ip:port", slot.id(), config.node(), slot.instance(), config.host());
            }
            if (!heldByThisHost(slot) || owned.containsKey(slot.id())) {
                continue;
            }
            try {
                if (claiming && owned.size() < config.maxSlots()) {
                    long sent = clock.nanoTime();
                    if (store.reclaim(slot, me)) {
                        log.info("Took back {} held by instance {} of this node ({}), epoch {}",
                                slot.id(), slot.instance(), config.node(), slot.epoch() + 1);
                        acquire(slot.id(), slot.epoch() + 1, sent);
                        won++;
                    }
                } else if (store.release(slot.id(), slot.epoch(), slot.instance())) {
                    log.info("Released {}, held by instance {} of this node, which has no room for it",
                            slot.id(), slot.instance());
                }
            } catch (RuntimeException e) {
                outage.failed("Cannot take back " + slot.id(), e);
            }
        }
        return won;
    }

    private List<SlotView> claimable(List<SlotView> slots) {
        long now = clock.nanoTime();
        List<SlotView> candidates = new ArrayList<>();
        for (SlotView slot : slots) {
            if (slot.expired() && !heldByThisHost(slot) && !owned.containsKey(slot.id())
                    && observations.waitedOut(slot, now)) {
                candidates.add(slot);
            }
        }
        return candidates;
    }

    /** Tries the candidates in this node's rendezvous order; a conflict moves on to the next one. */
    private boolean claimOne(List<SlotView> candidates) {
        for (SlotView slot : ClaimOrder.rank(config.node(), candidates)) {
            long sent = clock.nanoTime();
            boolean won;
            try {
                won = store.claim(slot, me);
            } catch (RuntimeException e) {
                // The claim may have landed; if so the next poll finds the slot under this node's
                // identity and takes it back.
                outage.failed("Claim of " + slot.id() + " failed", e);
                return false;
            }
            if (won) {
                if (slot.owner() != null) {
                    log.info("Took over {} from {} (lease {} expired), epoch {}",
                            slot.id(), slot.owner(), Durations.format(slot.lease()), slot.epoch() + 1);
                }
                acquire(slot.id(), slot.epoch() + 1, sent);
                return true;
            }
            log.debug("Lost the race for {}", slot.id());
        }
        return false;
    }

    private void acquire(String slotId, long epoch, long claimSentNanos) {
        OwnedLease lease = new OwnedLease(slotId, epoch, config.node(), clock, validNanos, claimSentNanos);
        log.info("Acquired {} at epoch {}", slotId, epoch);
        // Held while the listener runs, so that a loss found meanwhile is reported after acquired().
        synchronized (lease) {
            owned.put(slotId, lease);
            notify("acquired", lease, () -> listener.acquired(lease));
        }
    }

    /**
     * Renews every lease this node holds, each on its own (see {@link Fanout}); a renewal that matches
     * nothing ends its lease at once.
     */
    public void renewAll() {
        List<Runnable> renewals = new ArrayList<>();
        for (OwnedLease lease : owned.values()) {
            if (lease.endReason() == null) {
                renewals.add(() -> renew(lease));
            }
        }
        if (!renewals.isEmpty()) {
            fanout.runAll(renewals);
        }
    }

    private void renew(OwnedLease lease) {
        long sent = clock.nanoTime();
        boolean renewed;
        try {
            renewed = store.renew(lease.slotId(), lease.epoch(), me);
        } catch (RuntimeException e) {
            // Not a loss yet: the fence deadline decides when to give up.
            outage.failed("Renewal of " + lease.slotId() + " failed", e);
            return;
        }
        outage.succeeded();
        if (!renewed) {
            lose(lease, whyGone(lease));
        } else if (!lease.renewed(sent, clock.nanoTime())) {
            lose(lease, LossReason.FENCED);
        }
    }

    private LossReason whyGone(OwnedLease lease) {
        try {
            return store.read(lease.slotId())
                    .map(slot -> slot.owner() == null && slot.epoch() > lease.epoch() ? LossReason.REVOKED : LossReason.TAKEN)
                    .orElse(LossReason.VANISHED);
        } catch (RuntimeException e) {
            return LossReason.TAKEN;
        }
    }

    /**
     * Ends every lease whose local deadline has passed: no renewal succeeded for {@code lease - fenceMargin}
     * since the last successful one was sent. Uses only this node's monotonic clock, so it works while
     * the database is unreachable.
     */
    public void checkFences() {
        long now = clock.nanoTime();
        for (OwnedLease lease : owned.values()) {
            if (lease.endReason() == null && lease.deadlinePassed(now)) {
                lose(lease, LossReason.FENCED);
            }
        }
    }

    /**
     * Refuses to go on if this node's ip:port holds a live lease from an instance on another host: two
     * nodes share one identity (the same address on two machines, or behind NAT). Neither may take the
     * other's slots back without waiting, so they would not fight, but every log, table and take-back
     * that names a node by its address would be ambiguous.
     *
     * @throws IllegalStateException naming both hosts
     */
    public void checkIdentity() {
        List<SlotView> slots;
        try {
            slots = store.readAll();
        } catch (RuntimeException e) {
            outage.failed("Cannot read slots", e);
            return;
        }
        for (SlotView slot : slots) {
            if (heldByTwin(slot) && !slot.expired()) {
                throw new IllegalStateException(config.node() + " holds a live lease on " + slot.id()
                        + " from another host (instance " + slot.instance() + "); this node is on " + config.host()
                        + ": give every node its own ip:port");
            }
        }
    }

    /** Held under this ip:port by an instance on this host (this process, or an earlier one that binding proved gone). */
    private boolean heldByThisHost(SlotView slot) {
        return config.node().equals(slot.owner()) && config.host() != null
                && config.host().equals(NodeConfig.hostOf(slot.instance()));
    }

    /** Held under this ip:port by an instance on another host, or one whose host is not known. */
    private boolean heldByTwin(SlotView slot) {
        return config.node().equals(slot.owner()) && !heldByThisHost(slot);
    }

    /** Stops claiming; every later poll only reads. */
    public void stopClaiming() {
        claiming = false;
    }

    /**
     * Graceful stop: stops claiming, lets the listener stop each slot's work while renewals go on, then
     * releases each slot (owner cleared, epoch kept, time set to 1970) so that a standby takes it at its
     * next poll. Slots are released in parallel (see {@link Fanout}).
     */
    public void releaseAll() {
        stopClaiming();
        List<Runnable> releases = owned.values().stream().filter(l -> l.endReason() == null)
                .<Runnable>map(lease -> () -> release(lease)).toList();
        if (!releases.isEmpty()) {
            fanout.runAll(releases);
        }
    }

    private void release(OwnedLease lease) {
        notify("releasing", lease, () -> listener.releasing(lease));
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
                log.warn("Could not release {}; it becomes claimable when its lease expires: {}", lease.slotId(), e.toString());
            }
        }
    }

    private void lose(OwnedLease lease, LossReason reason) {
        if (lease.end(reason)) {
            log.warn("Lost {} at epoch {}: {}", lease.slotId(), lease.epoch(), describe(reason));
            reportLoss(lease, reason);
        }
    }

    private void reportLoss(OwnedLease lease, LossReason reason) {
        synchronized (lease) {
            notify("lost", lease, () -> listener.lost(lease, reason));
        }
        // Removed only after the listener returned, so the slot is not claimed again on this node
        // before the work of the old lease has stopped.
        owned.remove(lease.slotId(), lease);
    }

    private static String describe(LossReason reason) {
        return switch (reason) {
            case TAKEN -> "another node owns it now";
            case REVOKED -> "an operator released it";
            case FENCED -> "no renewal succeeded within the lease minus the fence margin";
            case RELEASED -> "released";
            case VANISHED -> "the slot document is gone";
        };
    }

    private static void notify(String event, Lease lease, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.error("Slot listener failed on {} for {}", event, lease, e);
        }
    }

    /** Logs the first failure of an outage and its end, instead of one line per attempt. */
    private static final class Outage {
        private volatile boolean down;

        void failed(String what, RuntimeException e) {
            if (!down) {
                down = true;
                log.warn("{}: {}", what, e.toString());
            } else {
                log.debug("{}: {}", what, e.toString());
            }
        }

        void succeeded() {
            if (down) {
                down = false;
                log.info("Database reachable again");
            }
        }
    }
}
