package io.standby.slot;

import java.time.Duration;

/**
 * How often a node checks its leases' local deadlines, and the rule that makes that often enough.
 *
 * <p>Each way another node may take a slot over leaves the owner a margin between its own deadline and the earliest
 * takeover: the fence margin before the lease runs out, the late margin before the late mark (fast failover), and the
 * watch margin before a claim by a dead watch link ({@code 0.2 × watch lease}: the owner pauses at 0.9 watch leases,
 * the standby claims at 1.1). Only the fence check stops robots that are busy in code of their own, so it must run
 * several times within the smallest of these margins: at a quarter of it, between {@link #MIN} and {@link #MAX}.
 */
public final class FenceCheck {

    /** The shortest period: a check more often than this costs more than it saves. */
    public static final Duration MIN = Duration.ofMillis(5);
    /** The longest period, whatever the margins. */
    public static final Duration MAX = Duration.ofMillis(100);

    private FenceCheck() {}

    /** The period of the fence check for {@code timing} and, with watch links, {@code watchLease} (null without). */
    public static Duration interval(SlotTiming timing, Duration watchLease) {
        Duration quarter = smallestMargin(timing, watchLease).dividedBy(4);
        return quarter.compareTo(MIN) < 0 ? MIN : quarter.compareTo(MAX) > 0 ? MAX : quarter;
    }

    /**
     * The margin a claim by a dead watch link leaves the owner: it pauses at 0.9 watch leases, the claim comes at 1.1.
     */
    public static Duration watchMargin(Duration watchLease) {
        return watchLease.dividedBy(5);
    }

    /**
     * Refuses settings where a margin is shorter than the fence check's period: the check could then miss a deadline
     * altogether, and a robot busy in a side effect run on while another node takes its slot.
     *
     * @throws IllegalArgumentException naming the setting whose margin is too small
     */
    public static void requireCovered(SlotTiming timing, Duration watchLease) {
        Duration period = interval(timing, watchLease);
        require(
                timing.fenceMargin(),
                period,
                "the fence margin " + Durations.format(timing.fenceMargin()) + " (lease "
                        + Durations.format(timing.lease()) + ")");
        require(
                timing.lateMargin(),
                period,
                "the late margin " + Durations.format(timing.lateMargin())
                        + " (a tenth of the late mark, 2 × heartbeat " + Durations.format(timing.heartbeat()) + ")");
        if (watchLease != null) {
            require(
                    watchMargin(watchLease),
                    period,
                    "the watch margin " + Durations.format(watchMargin(watchLease)) + " (0.2 × watch lease "
                            + Durations.format(watchLease) + ")");
        }
    }

    private static void require(Duration margin, Duration period, String what) {
        if (margin.compareTo(period) < 0) {
            throw new IllegalArgumentException(what + " is shorter than the fence check's period "
                    + Durations.format(period) + ": a robot could run past its owner's deadline; use longer settings");
        }
    }

    private static Duration smallestMargin(SlotTiming timing, Duration watchLease) {
        Duration margin =
                timing.lateMargin().compareTo(timing.fenceMargin()) < 0 ? timing.lateMargin() : timing.fenceMargin();
        if (watchLease != null && watchMargin(watchLease).compareTo(margin) < 0) {
            margin = watchMargin(watchLease);
        }
        return margin;
    }
}
