package io.standby.node;

import com.mongodb.MongoClientSettings;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotListener;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.WatchLinks;
import java.util.List;
import java.util.function.Consumer;

/**
 * A node's settings, checked ({@link StandbyNodeBuilder#build()}) and fixed: what {@link NodeAssembly} opens at the
 * start. {@code slotDatabase} and {@code robotDatabase} are the caller's connections, or null when the node connects to
 * {@code uri} itself; {@code clientSettings} may be null; {@code watchLinks} is null without watch links.
 */
record NodeSettings(
        String uri,
        String database,
        Consumer<MongoClientSettings.Builder> clientSettings,
        StandbyDatabase slotDatabase,
        StandbyDatabase robotDatabase,
        NodeConfig config,
        RuntimeConfig runtime,
        RobotTypes robotTypes,
        SlotListener listener,
        boolean endpoint,
        boolean fastFailover,
        MonotonicClock clock,
        List<NodeExtension> extensions,
        WatchLinks watchLinks) {

    NodeSettings {
        extensions = List.copyOf(extensions);
    }
}
