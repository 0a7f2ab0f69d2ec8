package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node in the {@code nodes} registry: it writes its document at a low rate (when its state or slots change, and
 * otherwise every few heartbeats, so the cost per node stays constant), reads the others when it has slots to claim,
 * and removes its document when it stops. The registry only helps: a node that cannot write it or read it claims on its
 * own, after a head start.
 */
final class Membership {

    private static final Logger log = LoggerFactory.getLogger(Membership.class);
    /** Every this many writes, the write also removes documents of nodes gone for long. */
    private static final int SWEEP_EVERY = 60;

    private final NodeRegistry registry;
    private final NodeConfig config;
    private final Supplier<Workload> workload;
    private final Load.Gauge gauge;
    private final MonotonicClock clock;
    private final String version;
    private final long writeEveryNanos;
    /** How long a node may go unseen before its document is swept: ten minutes, or 30 of its writes if longer. */
    private final Duration sweepAfter;

    private NodeRegistry.NodeRecord lastWritten;
    private long lastWriteNanos;
    private boolean registered;
    private int writes;
    private boolean warned;
    private boolean drainRequested;
    private List<ClaimPlan.Member> members = List.of();
    private long membersReadNanos = Long.MIN_VALUE;

    /** @param writeEvery how often the document is written when nothing changed */
    Membership(
            NodeRegistry registry,
            NodeConfig config,
            Supplier<Workload> workload,
            Load.Gauge gauge,
            MonotonicClock clock,
            Duration writeEvery,
            String version) {
        this.registry = registry;
        this.gauge = gauge;
        this.config = config;
        this.workload = workload;
        this.clock = clock;
        this.version = version;
        this.writeEveryNanos = writeEvery.toNanos();
        Duration thirtyWrites = writeEvery.multipliedBy(30);
        this.sweepAfter = Duration.ofMinutes(10).compareTo(thirtyWrites) > 0 ? Duration.ofMinutes(10) : thirtyWrites;
    }

    /**
     * Writes this node's document if its state or slots changed, or a write is due. Returns whether an operator asked
     * this node to drain (as of the last write).
     */
    boolean report(NodeState state, List<String> slots) {
        long now = clock.nanoTime();
        Workload robots = workload.get();
        boolean changed = lastWritten == null
                || lastWritten.state() != state
                || !lastWritten.slots().equals(slots)
                || lastWritten.robotsRunning() != robots.running()
                || lastWritten.robotsFailed() != robots.failed();
        if (!changed && now - lastWriteNanos < writeEveryNanos) {
            return drainRequested;
        }
        double cpu = gauge.cpu();
        double memory = gauge.memory();
        NodeRegistry.NodeRecord record = new NodeRegistry.NodeRecord(
                config.node(),
                config.instance(),
                config.host(),
                state,
                List.copyOf(slots),
                config.maxSlots(),
                robots.running(),
                robots.failed(),
                cpu,
                memory,
                Load.score(cpu, slots.size(), config.maxSlots(), memory),
                version,
                Duration.ofNanos(writeEveryNanos),
                robots.types());
        try {
            drainRequested = registry.write(record, registered ? NodeRegistry.Write.AGAIN : NodeRegistry.Write.FIRST);
            registered = true;
            lastWritten = record;
            lastWriteNanos = now;
            if (++writes % SWEEP_EVERY == 0) {
                long swept = registry.sweep(sweepAfter);
                if (swept > 0) {
                    log.info("Removed {} node(s) not seen for {} from the registry", swept, sweepAfter);
                }
            }
            warned = false;
        } catch (RuntimeException e) {
            if (!warned) {
                warned = true;
                log.warn("Cannot write this node's registry document (claims go on without it): {}", e.toString());
            }
        }
        return drainRequested;
    }

    /**
     * Reads the live nodes ({@link NodeRegistry#readLive()}) if the last read is older than {@code maxAge}. A registry
     * that cannot be read leaves no live nodes: the plan then gives this node every slot it has room for, and the
     * compare-and-set sorts out the race.
     */
    void refresh(Duration maxAge) {
        long now = clock.nanoTime();
        if (membersReadNanos != Long.MIN_VALUE && now - membersReadNanos < maxAge.toNanos()) {
            return;
        }
        try {
            members = registry.readLive();
            membersReadNanos = now;
        } catch (RuntimeException e) {
            log.debug("Cannot read the registry: {}", e.toString());
            members = List.of();
        }
    }

    /** Whether the registry was read within {@code maxAge}. */
    boolean readWithin(Duration maxAge) {
        return membersReadNanos != Long.MIN_VALUE && clock.nanoTime() - membersReadNanos < maxAge.toNanos();
    }

    /** The live nodes as of the last {@link #refresh}, reading the registry if it was never read. */
    List<ClaimPlan.Member> live() {
        if (membersReadNanos == Long.MIN_VALUE) {
            refresh(Duration.ZERO);
        }
        return members;
    }

    /** This node's load score right now, holding {@code held} slots. */
    int load(int held) {
        return Load.score(gauge.cpu(), held, config.maxSlots(), gauge.memory());
    }

    /** Removes this node's document: a graceful stop. */
    void leave() {
        try {
            registry.remove(config.node(), config.instance());
        } catch (RuntimeException e) {
            log.warn(
                    "Could not remove this node's registry document; it shows as offline, then goes: {}", e.toString());
        }
    }

    /**
     * Removes the document of another node whose process was found gone (fast failover), if it is still that process's:
     * views and plans stop counting it at once instead of after three of its intervals. If it lives after all, its next
     * write puts the document back.
     */
    void forget(NodeId node, String instance) {
        try {
            registry.remove(node, instance);
        } catch (RuntimeException e) {
            log.debug("Could not remove the registry document of {}, found gone: {}", node, e.toString());
        }
    }

    boolean registered() {
        return registered;
    }

    static String version() {
        return Objects.requireNonNullElse(Membership.class.getPackage().getImplementationVersion(), "dev");
    }
}
