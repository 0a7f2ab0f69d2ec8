package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotListener;
import io.standby.slot.Workload;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What a {@link SlotProtocol} is made of. {@link #of} gives a node that takes part in no membership (it claims every
 * claimable slot at once), renews one lease after another and always waits out a lease; the withers add the rest.
 *
 * @param registry the nodes registry the node writes itself into and plans its claims from
 * @param workload what the node's robots amount to, for its registry document
 * @param gauge the machine's CPU and memory, for the node's load score
 * @param gone finds owners whose process is gone, to take their slots over before the lease runs out;
 *     {@link GoneOwners#OFF} to always wait for the lease
 * @param ownerLinks this owner's watch links ({@link OwnerLinks#OFF}: none)
 * @param standbyLinks the owners this node watches, to take over within a watch lease of their death
 *     ({@link StandbyLinks#NONE}-connected: none)
 */
public record ProtocolSetup(
        SlotStore store,
        NodeConfig config,
        MonotonicClock clock,
        SlotListener listener,
        Sleeper sleeper,
        Fanout fanout,
        NodeRegistry registry,
        Supplier<Workload> workload,
        Load.Gauge gauge,
        GoneOwners gone,
        OwnerLinks ownerLinks,
        StandbyLinks standbyLinks) {

    public ProtocolSetup {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(fanout, "fanout");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(gauge, "gauge");
        Objects.requireNonNull(gone, "gone");
        Objects.requireNonNull(ownerLinks, "ownerLinks");
        Objects.requireNonNull(standbyLinks, "standbyLinks");
    }

    private static final StandbyLinks NO_WATCHES = new StandbyLinks(() -> 0, StandbyLinks.NONE);

    public static ProtocolSetup of(SlotStore store, NodeConfig config, MonotonicClock clock, SlotListener listener) {
        return new ProtocolSetup(
                store,
                config,
                clock,
                listener,
                Sleeper.THREAD,
                Fanout.SEQUENTIAL,
                NodeRegistry.NONE,
                () -> Workload.NONE,
                Load.Gauge.IDLE,
                GoneOwners.OFF,
                OwnerLinks.OFF,
                NO_WATCHES);
    }

    /** A member of the registry's membership, with an idle workload and machine. */
    public ProtocolSetup withMembership(NodeRegistry registry) {
        return withMembership(registry, () -> Workload.NONE, Load.Gauge.IDLE);
    }

    public ProtocolSetup withMembership(NodeRegistry registry, Supplier<Workload> workload, Load.Gauge gauge) {
        return new ProtocolSetup(
                store,
                config,
                clock,
                listener,
                sleeper,
                fanout,
                registry,
                workload,
                gauge,
                gone,
                ownerLinks,
                standbyLinks);
    }

    public ProtocolSetup withSleeper(Sleeper sleeper) {
        return new ProtocolSetup(
                store,
                config,
                clock,
                listener,
                sleeper,
                fanout,
                registry,
                workload,
                gauge,
                gone,
                ownerLinks,
                standbyLinks);
    }

    public ProtocolSetup withFanout(Fanout fanout) {
        return new ProtocolSetup(
                store,
                config,
                clock,
                listener,
                sleeper,
                fanout,
                registry,
                workload,
                gauge,
                gone,
                ownerLinks,
                standbyLinks);
    }

    /** Fast failover: owners that {@code gone} finds gone are taken over before their lease runs out. */
    public ProtocolSetup withFastFailover(GoneOwners gone) {
        return new ProtocolSetup(
                store,
                config,
                clock,
                listener,
                sleeper,
                fanout,
                registry,
                workload,
                gauge,
                gone,
                ownerLinks,
                standbyLinks);
    }

    /**
     * Watch links: this owner keeps {@code ownerLinks}' rule, and this node takes over, by {@code standbyLinks}, the
     * slots of owners whose link died, within a watch lease. Both sides or neither.
     */
    public ProtocolSetup withWatchLinks(OwnerLinks ownerLinks, StandbyLinks standbyLinks) {
        return new ProtocolSetup(
                store,
                config,
                clock,
                listener,
                sleeper,
                fanout,
                registry,
                workload,
                gauge,
                gone,
                ownerLinks,
                standbyLinks);
    }

    boolean hasMembership() {
        return registry != NodeRegistry.NONE;
    }

    boolean fastFailover() {
        return gone != GoneOwners.OFF;
    }
}
