package io.standby.node;

import io.standby.node.NodeAssembly.Parts;
import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeState;
import io.standby.slot.WatchLinkCounts;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Standby node inside an application's own process: it takes part in the slot protocol and runs the robots of the
 * slots it owns, until closed.
 *
 * <pre>{@code
 * try (StandbyNode node = StandbyNode.builder().mongo(uri).node("10.0.0.5", 7700).start()) {
 *     // the application's own work; the node's robots run meanwhile
 * }
 * }</pre>
 *
 * <p>{@link #close()} is the graceful stop: no more claims; every robot checkpoints and returns (up to the stop
 * timeout); every slot is released so that a standby takes it at its next poll. The node's identity is its ip:port,
 * which it binds for its HTTP endpoint: {@code /health} (alive), and what its extensions add
 * ({@link StandbyNodeBuilder#extension}; the {@code standby-node-web} module's {@code /ready}, {@code /status},
 * dashboard and {@code /metrics}). Binding proves that no other live process on this host has the identity, which is
 * what lets a restarted node take its own slots back at once. An application that listens on that address itself says
 * so with {@link StandbyNodeBuilder#withoutEndpoint()}, and with {@link StandbyNodeBuilder#addressBound()} if it has
 * bound it before starting the node.
 *
 * <p>This class is the node's lifecycle and what it tells; {@link StandbyNodeBuilder} holds its settings and
 * {@code NodeAssembly} opens its parts in order.
 */
public final class StandbyNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StandbyNode.class);

    /** Curator's lifecycle: a node starts once and closes once; a closed node never starts. */
    private enum Phase {
        LATENT,
        STARTED,
        CLOSED
    }

    private final NodeSettings settings;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.LATENT);
    private volatile Parts parts;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final CompletableFuture<String> identityLost = new CompletableFuture<>();

    StandbyNode(NodeSettings settings) {
        this.settings = settings;
    }

    /** A builder with every default; {@link StandbyNodeBuilder#node} is required. */
    public static StandbyNodeBuilder builder() {
        return new StandbyNodeBuilder();
    }

    /**
     * Binds the address, connects, checks the database (reachable, MongoDB 4.2 or newer), starts the robot runtime,
     * then the slot protocol, then tells the extensions. Once only.
     *
     * @throws IllegalStateException if started before or closed; if the address is taken, the database cannot be
     *     reached or is too old, or this identity holds a live lease of a process the node cannot prove gone (on
     *     another host, or on this one without a bound address); everything opened so far is closed again
     */
    public synchronized StandbyNode start() {
        if (!phase.compareAndSet(Phase.LATENT, Phase.STARTED)) {
            throw new IllegalStateException("node " + config().node() + " cannot be started more than once (it is "
                    + phase.get().name().toLowerCase(Locale.ROOT) + ")");
        }
        Parts started;
        try {
            started = NodeAssembly.open(settings);
        } catch (RuntimeException e) {
            phase.set(Phase.CLOSED);
            throw e;
        }
        parts = started;
        started.slots().drained().whenComplete((done, failed) -> complete(drained, done, failed));
        started.slots().identityLost().whenComplete((reason, failed) -> complete(identityLost, reason, failed));
        return this;
    }

    private static <T> void complete(CompletableFuture<T> future, T value, Throwable failed) {
        if (failed != null) {
            future.completeExceptionally(failed);
        } else {
            future.complete(value);
        }
    }

    /** The node's identity, timing and instance id. */
    public NodeConfig config() {
        return settings.config();
    }

    /** The leases this node holds right now; none before it starts. */
    public List<Lease> leases() {
        Parts now = parts;
        return now == null ? List.of() : now.slots().leases();
    }

    /** What the node's watch links do ({@link WatchLinkCounts#NONE} without them, or before it starts). */
    public WatchLinkCounts watchLinks() {
        Parts now = parts;
        return now == null ? WatchLinkCounts.NONE : now.slots().watchLinks();
    }

    /** What the node does now: drains, owns slots, or stands by (also before it starts). */
    public NodeState state() {
        Parts now = parts;
        return now == null ? NodeState.STANDBY : now.slots().state();
    }

    /**
     * Empty while the node takes part in the protocol: started, not closed, and its last read of the slots succeeded
     * lately (so an unreachable database shows); otherwise why not, in a few words.
     */
    public Optional<String> notReady() {
        Parts now = parts;
        if (phase.get() == Phase.CLOSED) {
            return Optional.of("stopped");
        }
        return now == null ? Optional.of("not started") : now.slots().notReady();
    }

    /**
     * Completes when an operator's drain request has handed every slot of this node to standbys; the application then
     * closes the node (the {@code standby node} command exits).
     */
    public CompletableFuture<Void> drained() {
        return drained;
    }

    /**
     * Completes, with the reason, if this node's address stops accepting connects while it runs (with fast failover):
     * it has fenced every lease and claims nothing more, since other nodes would take it for dead. The application
     * should close it, and find out what closed its listener.
     */
    public CompletableFuture<String> identityLost() {
        return identityLost;
    }

    /** The robots running on this node, by slot; none before it starts. */
    public Map<String, List<String>> running() {
        Parts now = parts;
        return now == null ? Map.of() : now.robots().running();
    }

    /**
     * Graceful stop: every robot checkpoints and returns (interrupted after the stop timeout), then every slot is
     * released; then the connections it opened close. Idempotent; a node closed before it started never starts.
     */
    @Override
    public synchronized void close() {
        // Synchronized with start(): a close during a start waits for it, then stops what it opened.
        Phase before = phase.getAndSet(Phase.CLOSED);
        Parts now = parts;
        if (before != Phase.STARTED || now == null) {
            return;
        }
        long began = System.nanoTime();
        now.close();
        log.info(
                "Node {} closed: robots stopped, slots released, connections closed ({} ms)",
                config().node(),
                (System.nanoTime() - began) / 1_000_000);
    }
}
