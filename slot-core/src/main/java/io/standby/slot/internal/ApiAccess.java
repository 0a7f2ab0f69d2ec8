package io.standby.slot.internal;

import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeTable;
import io.standby.slot.SlotNodeBuilder;
import io.standby.slot.SlotTable;
import java.lang.invoke.MethodHandles;
import java.util.Objects;

/**
 * The API's constructors over internal parts, for the project's own modules only: the simulation builds the operator's
 * tables over its own stores, and a {@code StandbyNode} shares its clock and event log with its slot node. A public
 * constructor that took an internal type would be one no embedder could call, so the API keeps them package-private and
 * registers them here when it is loaded, the way the JDK's {@code SharedSecrets} does. This package is exported to the
 * project's modules only.
 */
public final class ApiAccess {

    /** What the API registers: its hidden constructors. */
    public interface Constructors {
        SlotTable slotTable(SlotStore store);

        NodeTable nodeTable(NodeRegistry registry, SlotStore store);

        SlotNodeBuilder sharing(SlotNodeBuilder builder, MonotonicClock clock, EventLog events);
    }

    private static volatile Constructors constructors;

    private ApiAccess() {}

    /**
     * Called once, by the API when it is loaded.
     *
     * @throws IllegalStateException on a second call
     */
    public static synchronized void register(Constructors api) {
        if (constructors != null) {
            throw new IllegalStateException("the slot API's constructors are registered already");
        }
        constructors = Objects.requireNonNull(api, "api");
    }

    /** A table over any slot store: the simulation drives the operator's very table over its own database. */
    public static SlotTable slotTable(SlotStore store) {
        return api().slotTable(store);
    }

    /** A table over any registry and slot store, for the simulation. */
    public static NodeTable nodeTable(NodeRegistry registry, SlotStore store) {
        return api().nodeTable(registry, store);
    }

    /**
     * For a node that shares one clock and one event log among its parts: every local deadline of the protocol is read
     * on {@code clock}, and the node records into {@code events}, which its owner starts once the node joined and
     * closes after it.
     */
    public static SlotNodeBuilder sharing(SlotNodeBuilder builder, MonotonicClock clock, EventLog events) {
        return api().sharing(builder, clock, events);
    }

    private static Constructors api() {
        Constructors api = constructors;
        if (api == null) {
            try {
                // SlotTable registers when it is initialized; nothing else may have touched it yet.
                MethodHandles.lookup().ensureInitialized(SlotTable.class);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            api = constructors;
        }
        return api;
    }
}
