package io.standby.slot;

import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.EventRecorder;
import io.standby.slot.internal.Fanout;
import io.standby.slot.internal.GoneOwners;
import io.standby.slot.internal.Load;
import io.standby.slot.internal.NodeLinks;
import io.standby.slot.internal.OwnerLinks;
import io.standby.slot.internal.ProtocolSetup;
import io.standby.slot.internal.SlotProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's part in the slot protocol: it claims slots while it has room, renews the ones it owns, stops on its own
 * before a lease could expire, and releases its slots when closed.
 *
 * <p>Three threads of its own: one polls and claims, one renews every heartbeat, one checks the local fence deadlines
 * (so a hung database call can delay neither renewals nor self-fencing); with fast failover a fourth connects to the
 * node's own address. Started once, closed once; {@link #close()} is the graceful stop.
 *
 * <p>Before starting a node, bind its ip:port (the CLI binds its HTTP endpoint there), hold it until the node is
 * closed, and say so with {@link NodeConfig#addressBound()}: that proves that no earlier process with this identity on
 * this host lives, which is what makes taking back their slots at once safe. Without it, the node waits out those
 * leases like any standby, and refuses to start while one is live.
 */
public final class SlotNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SlotNode.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final SlotProtocol protocol;
    private final NodeConfig config;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(daemon("standby-poll"));
    private final ScheduledExecutorService heartbeat =
            Executors.newSingleThreadScheduledExecutor(daemon("standby-heartbeat"));
    private final ScheduledExecutorService fence = Executors.newSingleThreadScheduledExecutor(daemon("standby-fence"));
    /** Its own thread: a slow connect to this node's address must never delay a fence check. */
    private final ScheduledExecutorService identity =
            Executors.newSingleThreadScheduledExecutor(daemon("standby-identity"));

    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final CompletableFuture<String> identityLost = new CompletableFuture<>();
    private final boolean fastFailover;
    private final EventLog events;
    /** Whether this node started its event log and closes it, or its owner (a whole node) does. */
    private final boolean ownsEvents;

    private final MonotonicClock clock;
    /** Both sides of this node's watch links; null without them. */
    private final NodeLinks links;

    private final OwnerLinks ownerLinks;
    /** Pings the standbys watching this node; its own thread, so that a slow poll never silences them. */
    private final ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(daemon("standby-watch"));

    /** See {@link SlotNodeBuilder}. */
    SlotNode(
            SlotNodeBuilder.Stores stores,
            NodeConfig config,
            MonotonicClock clock,
            SlotListener listener,
            Supplier<Workload> workload,
            SlotNodeBuilder.Events events,
            SlotNodeBuilder.Takeover takeover) {
        this.config = config;
        this.events = events.log();
        this.ownsEvents = events.ownLog();
        this.clock = clock;
        this.fastFailover = takeover.fastFailover();
        GoneOwners gone =
                fastFailover ? GoneOwners.overTcp(clock, config.timing().heartbeat()) : GoneOwners.OFF;
        SlotListener listeners =
                this.events == null ? listener : SlotListener.inOrder(new EventRecorder(this.events), listener);
        ProtocolSetup setup = ProtocolSetup.of(stores.slots(), config, clock, listeners)
                .withMembership(stores.registry(), workload, Load.Gauge.SYSTEM)
                .withFanout(Fanout.PARALLEL)
                .withFastFailover(gone);
        if (takeover.watchLinks() != null) {
            this.links = new NodeLinks(
                    config,
                    clock,
                    takeover.watchLinks(),
                    takeover.readKey(),
                    task -> heartbeat.execute(guard("renew", task)),
                    this::renewAll);
            this.ownerLinks = links.ownerLinks();
            setup = setup.withWatchLinks(ownerLinks, links.standbyLinks());
        } else {
            this.links = null;
            this.ownerLinks = OwnerLinks.OFF;
        }
        this.protocol = new SlotProtocol(setup);
    }

    /** The protocol's renewal of every lease, for the watch links: not before the constructor is done. */
    private void renewAll() {
        protocol.renewAll();
    }

    /** What this node's watch links do; {@link WatchLinkCounts#NONE} without them. From any thread. */
    public WatchLinkCounts watchLinks() {
        return links == null ? WatchLinkCounts.NONE : links.counts();
    }

    /** A node on {@code database}, as {@code config} says; {@link SlotNodeBuilder} has the rest. */
    public static SlotNodeBuilder builder(StandbyDatabase database, NodeConfig config) {
        return new SlotNodeBuilder(database, config);
    }

    /**
     * Completes, with the reason, if this node's own address refuses connects while it runs (with fast failover): it
     * has fenced every lease and claims nothing more, since other nodes take it for dead.
     */
    public CompletableFuture<String> identityLost() {
        return identityLost;
    }

    /**
     * Completes when an operator's drain request ({@code standby node drain}) has handed every slot of this node to
     * standbys: the node has nothing left to do, and its owner may close it.
     */
    public CompletableFuture<Void> drained() {
        return drained;
    }

    /** How this node's claims went so far. */
    public ClaimCounts claims() {
        return protocol.claims();
    }

    /** The entries of this node's maps keyed by slots, owners and peers, by name (its meters). From any thread. */
    public Map<String, Integer> remembered() {
        return protocol.remembered();
    }

    /**
     * Starts polling, renewing and fencing, after joining the cluster: checking that no other host holds a live lease
     * under this ip:port, writing this node into the registry and waiting up to 250 ms for nodes starting with it to do
     * the same. The first poll runs at once and takes back this identity's slots before claiming others.
     *
     * @throws IllegalStateException if started before or closed, or if this node's ip:port holds a live lease of
     *     another process it cannot take back from: on another host, or on this one without
     *     {@link NodeConfig#addressBound()} (two live nodes must not share an identity)
     */
    public SlotNode start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("A slot node can be started only once");
        }
        try {
            protocol.join();
        } catch (IllegalStateException e) {
            state.set(State.CLOSED);
            throw e;
        } catch (InterruptedException e) {
            state.set(State.CLOSED);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while joining", e);
        }
        if (events != null && ownsEvents) {
            // After the join: a node refused at the join records nothing.
            events.start();
        }
        if (links != null) {
            links.readKeyIfMissing();
        }
        SlotTiming timing = config.timing();
        heartbeat.scheduleAtFixedRate(
                guard("renew", protocol::renewAll),
                timing.heartbeat().toNanos(),
                timing.heartbeat().toNanos(),
                TimeUnit.NANOSECONDS);
        long check = FenceCheck.interval(timing, ownerLinks.isOn() ? ownerLinks.watchLease() : null)
                .toNanos();
        fence.scheduleAtFixedRate(guard("fence", protocol::checkFences), check, check, TimeUnit.NANOSECONDS);
        if (fastFailover) {
            long half =
                    Math.max(Duration.ofMillis(50).toNanos(), timing.heartbeat().toNanos() / 2);
            identity.scheduleAtFixedRate(
                    guard("identity", () -> protocol.checkIdentity().ifPresent(identityLost::complete)),
                    half,
                    half,
                    TimeUnit.NANOSECONDS);
        }
        if (ownerLinks.isOn()) {
            long tick = ownerLinks.tickInterval().toNanos();
            watch.scheduleAtFixedRate(guard("watch", ownerLinks::tick), tick, tick, TimeUnit.NANOSECONDS);
            // Between polls: a dead link's wait ends at any moment, and the takeover should follow within a tick.
            poller.scheduleWithFixedDelay(
                    guard("watched takeover", () -> {
                        try {
                            protocol.takeWatched();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }),
                    tick,
                    tick,
                    TimeUnit.NANOSECONDS);
        }
        poller.scheduleWithFixedDelay(
                guard("poll", () -> {
                    try {
                        if (links != null) {
                            links.readKeyIfMissing();
                        }
                        protocol.poll();
                        if (protocol.drained()) {
                            drained.complete(null);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }),
                0,
                timing.poll().toNanos(),
                TimeUnit.NANOSECONDS);
        log.info(
                "Node {} started (instance {}, max slots {}, heartbeat {}, lease {}, poll {}, fast failover {}, "
                        + "watch links {})",
                config.node(),
                config.instance(),
                config.maxSlots(),
                Durations.format(timing.heartbeat()),
                Durations.format(timing.lease()),
                Durations.format(timing.poll()),
                fastFailover ? "on" : "off",
                ownerLinks.isOn()
                        ? "on (watch lease " + Durations.format(ownerLinks.watchLease()) + ", port " + ownerLinks.port()
                                + ")"
                        : "off");
        return this;
    }

    public NodeConfig config() {
        return config;
    }

    /** What this node does now: drains, owns slots, or stands by. */
    public NodeState state() {
        return protocol.state();
    }

    /**
     * Whether this node takes part in the protocol right now: started, not closed, and its last read of the slots
     * succeeded within two polls plus one operation timeout (so a hung or unreachable database shows). Empty when
     * ready; otherwise why not, in a few words.
     */
    public Optional<String> notReady() {
        State now = state.get();
        if (now != State.STARTED) {
            return Optional.of(now == State.LATENT ? "not started" : "stopped");
        }
        SlotTiming timing = config.timing();
        long allowed =
                timing.poll().multipliedBy(2).plus(timing.operationTimeout()).toNanos();
        OptionalLong lastRead = protocol.lastRead();
        if (lastRead.isEmpty()) {
            return Optional.of("has not read the slots yet");
        }
        long since = clock.nanoTime() - lastRead.getAsLong();
        return since <= allowed
                ? Optional.empty()
                : Optional.of("no answer from the database for " + Durations.approximately(Duration.ofNanos(since)));
    }

    /** The leases this node holds right now, by slot id. */
    public List<Lease> leases() {
        return protocol.leases();
    }

    /**
     * Graceful stop: no more claims; every owned slot is handed to {@link SlotListener#releasing} while renewals
     * continue, then released so that a standby can take it at its next poll. Idempotent.
     */
    @Override
    public void close() {
        State before = state.getAndSet(State.CLOSED);
        if (before == State.CLOSED) {
            return;
        }
        protocol.stopClaiming();
        poller.shutdownNow();
        awaitQuietly(poller);
        if (before == State.STARTED) {
            protocol.releaseAll();
            protocol.leave();
        }
        watch.shutdownNow();
        awaitQuietly(watch);
        if (links != null) {
            links.close();
        }
        heartbeat.shutdownNow();
        fence.shutdownNow();
        identity.shutdownNow();
        awaitQuietly(heartbeat);
        awaitQuietly(fence);
        awaitQuietly(identity);
        if (events != null && ownsEvents) {
            // After the last release and loss: they are recorded too.
            events.close();
        }
        log.info("Node {} stopped", config.node());
    }

    private static void awaitQuietly(ScheduledExecutorService executor) {
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("A protocol thread did not stop within 30s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A task that never dies of an exception: a scheduled executor silently drops a task that throws. */
    private static Runnable guard(String name, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable t) {
                log.error("Unexpected failure in the {} step", name, t);
            }
        };
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return Thread.ofPlatform().name(name).daemon().factory();
    }
}
