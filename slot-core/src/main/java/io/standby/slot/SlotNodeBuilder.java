package io.standby.slot;

import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.LinkKey;
import io.standby.slot.internal.MongoNodeRegistry;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.NodeRegistry;
import io.standby.slot.internal.SlotStore;
import io.standby.slot.internal.SuspendAwareClock;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Builds a {@link SlotNode} on a database whose client bounds every operation by {@link SlotTiming#operationTimeout()}
 * (see {@link StandbyDatabase#connect}). What is not set: no listener, no workload, no fast failover, no watch links,
 * the system's clock and an event log of the node's own. The node is not started.
 *
 * <pre>{@code
 * SlotNode node = SlotNode.builder(database, config).listener(listener).withFastFailover().build().start();
 * }</pre>
 */
public final class SlotNodeBuilder {

    private final StandbyDatabase database;
    private final NodeConfig config;
    private SlotListener listener = SlotListener.NONE;
    private Supplier<Workload> workload = () -> Workload.NONE;
    private boolean fastFailover;
    private MonotonicClock clock;
    private EventLog events;
    private WatchLinks watchLinks;

    SlotNodeBuilder(StandbyDatabase database, NodeConfig config) {
        this.database = Objects.requireNonNull(database, "database");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Told of every lease acquired, released and lost, in order, on the protocol's threads. */
    public SlotNodeBuilder listener(SlotListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** What the node's robots report, written into its {@code nodes} registry document each interval. */
    public SlotNodeBuilder workload(Supplier<Workload> workload) {
        this.workload = Objects.requireNonNull(workload, "workload");
        return this;
    }

    /**
     * Fast failover: the node takes a slot over before its lease runs out when the owner's heartbeat is late and the
     * owner's address, which accepted this node's connects before, refuses two connects in a row: the owner's process
     * is gone. And it checks its own address every half heartbeat: if that refuses connects while this node lives, it
     * fences every lease at once ({@link SlotNode#identityLost()}). The node's ip:port must then be held by a listener
     * for its whole life (the node's HTTP endpoint, or the application's own), and must be the address other nodes
     * reach it at. A firewall that rejects connects to a live node with a TCP reset makes a late node look gone: its
     * slots are taken and its writes fenced at once, and it stops its robots at its next renewal.
     */
    public SlotNodeBuilder withFastFailover() {
        this.fastFailover = true;
        return this;
    }

    /**
     * For a node that shares one clock and one event log among its parts (a {@code StandbyNode}): every local deadline
     * of the protocol is read on {@code clock}, and the node records into {@code events}, which its owner starts once
     * this node joined and closes after it. Reached through {@code ApiAccess}, as the event log is no API.
     */
    SlotNodeBuilder sharing(MonotonicClock clock, EventLog events) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.events = Objects.requireNonNull(events, "events");
        return this;
    }

    /**
     * Watch links, or none for null (the default): the node takes links from standbys on a port of its ip
     * ({@link WatchLinks#port()}, written into its owner document), and pauses a slot's robots when a link's deadline
     * passes before a renewal outran it; and it watches up to 16 owners, taking their slots within about {@code 1.1 ×
     * watch lease} of their death. Links are authenticated with the cluster's key, read from the database (collection
     * {@value LinkKey#COLLECTION}) at the start, and created there by the first node.
     */
    public SlotNodeBuilder watchLinks(WatchLinks watchLinks) {
        this.watchLinks = watchLinks;
        return this;
    }

    /**
     * The node, not started.
     *
     * @throws IllegalArgumentException if the watch lease is not shorter than the late mark, or leaves a margin shorter
     *     than the fence check's period ({@link FenceCheck})
     * @throws java.io.UncheckedIOException if the watch port cannot be bound
     */
    public SlotNode build() {
        Stores stores = new Stores(new MongoSlotStore(database), new MongoNodeRegistry(database.database()));
        return new SlotNode(
                stores,
                config,
                clock == null ? SuspendAwareClock.ofSystem() : clock,
                listener,
                workload,
                events == null ? Events.own(new EventLog(database.database())) : Events.shared(events),
                new Takeover(
                        fastFailover,
                        watchLinks,
                        watchLinks == null ? null : () -> LinkKey.loadOrCreate(database.database())));
    }

    /** The collections a node works on: its slots, and the registry of nodes. */
    record Stores(SlotStore slots, NodeRegistry registry) {}

    /**
     * Where a node records how its slots change hands, and whether the node starts and closes that log itself
     * ({@code ownLog}) or its owner, a whole node, does.
     */
    record Events(EventLog log, boolean ownLog) {

        static Events own(EventLog log) {
            return new Events(log, true);
        }

        static Events shared(EventLog log) {
            return new Events(log, false);
        }
    }

    /**
     * How a node takes slots over before their lease runs out: by fast failover, and by watch links with their settings
     * ({@link io.standby.slot.internal.OwnerLinks}) and a reader of the cluster's key for them (both null without).
     */
    record Takeover(boolean fastFailover, WatchLinks watchLinks, Supplier<LinkKey> readKey) {}
}
