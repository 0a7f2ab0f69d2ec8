package io.standby.slot;

import io.standby.slot.internal.ApiAccess;
import io.standby.slot.internal.EventLog;
import io.standby.slot.internal.NodeRegistry;
import io.standby.slot.internal.SlotStore;

/** The package-private constructors that {@link ApiAccess} hands to the project's own modules. */
final class HiddenConstructors implements ApiAccess.Constructors {

    @Override
    public SlotTable slotTable(SlotStore store) {
        return new SlotTable(store);
    }

    @Override
    public NodeTable nodeTable(NodeRegistry registry, SlotStore store) {
        return new NodeTable(registry, store);
    }

    @Override
    public SlotNodeBuilder sharing(SlotNodeBuilder builder, MonotonicClock clock, EventLog events) {
        return builder.sharing(clock, events);
    }
}
