package io.standby.slot;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A node as its registry document shows it ({@code nodes} collection), with its age judged by the database's clock.
 *
 * @param state what the node last said it does
 * @param slots the slots it holds, as it last wrote
 * @param load 0 (idle) to 100 (saturated): 64 % CPU, 32 % slots held of its maximum, 4 % heap (the load score, see
 *     {@code Load})
 * @param interval how often it writes its document when nothing changes
 * @param age how long ago it last wrote, by the server's clock
 * @param drain an operator asked it to drain
 * @param types the robot types it can run
 */
public record NodeView(
        NodeId id,
        String instance,
        String host,
        NodeState state,
        List<String> slots,
        int maxSlots,
        int robotsRunning,
        int robotsFailed,
        double cpu,
        double memory,
        int load,
        String version,
        Duration interval,
        Instant started,
        Instant time,
        Duration age,
        boolean drain,
        List<String> types) {

    /** Not written for three intervals: the node is gone, or cut off from the database. */
    public boolean offline() {
        return age.compareTo(interval.multipliedBy(3)) > 0;
    }
}
