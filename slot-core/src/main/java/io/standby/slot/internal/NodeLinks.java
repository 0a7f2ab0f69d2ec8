package io.standby.slot.internal;

import io.standby.slot.Durations;
import io.standby.slot.FenceCheck;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.WatchLinkCounts;
import io.standby.slot.WatchLinks;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's watch links, both sides, over TCP: the owner's rule ({@link OwnerLinks}) and its listener, the standby's
 * links ({@link StandbyLinks}) and their connector, the cluster's key they share, and the renewal a link's end asks
 * for. {@link io.standby.slot.SlotNode} schedules the steps; nothing here has a timer.
 */
public final class NodeLinks implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(NodeLinks.class);
    /** How long after a failed read of the key the next one is tried. */
    private static final Duration KEY_RETRY = Duration.ofMinutes(1);

    private final MonotonicClock clock;
    private final OwnerLinks ownerLinks;
    private final StandbyLinks standbyLinks;
    private final WatchListener listener;
    private final Supplier<LinkKey> readKey;
    private final Consumer<Runnable> renewalThread;
    private final Runnable renewAll;
    /** The cluster's key, once read: links are refused both ways until then. */
    private volatile LinkKey key;
    /** When this node last failed to read the key, on its clock; poll thread only. */
    private long keyFailedAt;

    private boolean keyFailed;
    /** A renewal asked for by a link's end and not yet run: more ends before it runs ask for nothing more. */
    private final AtomicBoolean renewalAsked = new AtomicBoolean();

    /**
     * Checks the settings and binds the listener.
     *
     * @param readKey reads (or creates) the cluster's key in the database
     * @param renewalThread runs a task on the renewal thread; may throw {@link RejectedExecutionException} once it
     *     stops
     * @param renewAll renews every lease: the protocol's step
     * @throws IllegalArgumentException if the watch lease is not shorter than the late mark, or its margin is shorter
     *     than the fence check's period
     * @throws UncheckedIOException if the watch port cannot be bound
     */
    public NodeLinks(
            NodeConfig config,
            MonotonicClock clock,
            WatchLinks settings,
            Supplier<LinkKey> readKey,
            Consumer<Runnable> renewalThread,
            Runnable renewAll) {
        FenceCheck.requireCovered(config.timing(), settings.lease());
        if (settings.lease().compareTo(config.timing().late()) >= 0) {
            throw new IllegalArgumentException("invalid watch lease " + Durations.format(settings.lease())
                    + ": must be shorter than the late mark "
                    + Durations.format(config.timing().late()) + " (2 × heartbeat)");
        }
        this.clock = clock;
        this.readKey = readKey;
        this.renewalThread = renewalThread;
        this.renewAll = renewAll;
        WatchStats stats = new WatchStats();
        this.ownerLinks = new OwnerLinks(clock, settings.lease(), this::renewNow, stats);
        try {
            this.listener =
                    new WatchListener(config.node().ip(), settings.port(), ownerLinks, config.instance(), () -> key);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot listen for watch links on " + config.node().ip()
                            + (settings.port() > 0 ? ":" + settings.port() : "") + ": " + e.getMessage(),
                    e);
        }
        this.standbyLinks =
                new StandbyLinks(clock, WatchConnector.of(config.node() + "/" + config.instance(), () -> key), stats);
    }

    public OwnerLinks ownerLinks() {
        return ownerLinks;
    }

    public StandbyLinks standbyLinks() {
        return standbyLinks;
    }

    /**
     * A renewal now, on the renewal thread: a watch link ended, and a new beat should land before its deadline. One at
     * a time: links that end while it waits to run are outrun by the same renewal, since it takes its beat when it
     * runs, after they ended.
     */
    private void renewNow() {
        if (!renewalAsked.compareAndSet(false, true)) {
            return;
        }
        try {
            renewalThread.accept(() -> {
                renewalAsked.set(false);
                renewAll.run();
            });
        } catch (RejectedExecutionException e) {
            // Stopping: the leases are being released.
            renewalAsked.set(false);
        }
    }

    /**
     * Reads the cluster's key if it is not known yet: at the start, and, if that failed, at most once a minute from the
     * poll thread. Until it is known, links are refused both ways.
     */
    public void readKeyIfMissing() {
        if (key != null) {
            return;
        }
        long now = clock.nanoTime();
        if (keyFailed && now - keyFailedAt < KEY_RETRY.toNanos()) {
            return;
        }
        try {
            key = readKey.get();
            if (keyFailed) {
                log.info("Read the cluster's key for watch links: links are on");
            }
            keyFailed = false;
        } catch (RuntimeException e) {
            if (!keyFailed) {
                log.warn(
                        "Cannot read or create the cluster's key for watch links (collection {}, id {}): {}; links "
                                + "stay off until "
                                + "it can, tried again every minute",
                        LinkKey.COLLECTION,
                        LinkKey.ID,
                        e.toString());
            }
            keyFailed = true;
            keyFailedAt = now;
        }
    }

    /** What the links do. From any thread. */
    public WatchLinkCounts counts() {
        WatchStats stats = ownerLinks.stats();
        return new WatchLinkCounts(
                ownerLinks.open(),
                standbyLinks.live(),
                stats.ownerEnds(),
                stats.standbyEnds(),
                stats.refused(),
                stats.pauses(),
                stats.takeovers());
    }

    /** Stops taking links and closes the open ones: their standbys see end of stream, as at an exit. */
    @Override
    public void close() {
        listener.close();
    }
}
