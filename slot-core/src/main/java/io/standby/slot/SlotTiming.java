package io.standby.slot;

import java.time.Duration;
import java.util.Objects;

/**
 * The timing of the slot protocol, validated in one place.
 *
 * <ul>
 *   <li>{@code heartbeat}: how often an owner renews each of its slots.
 *   <li>{@code lease}: how long a slot stays owned without a renewal, judged by the database's clock. It must be more
 *       than twice the heartbeat, so one lost renewal does not cost the slot.
 *   <li>{@code poll}: how often a node looks for claimable slots; less than the lease.
 *   <li>{@code fenceMargin}: an owner stops its robots when no renewal has succeeded for {@code lease - fenceMargin},
 *       counted from when the last successful renewal was sent, so it stops before any other node can see the lease
 *       expired. It covers the time to stop robots and the granularity of the local timer. Default: a tenth of the
 *       lease.
 * </ul>
 *
 * <p>A MongoDB replica-set election typically completes within about 12 s (a typical bound, not a maximum), during
 * which no renewal succeeds. The default lease (20 s) lets an owner ride through one: it stops its robots only at
 * {@code lease - fenceMargin} (18 s). With fast failover an owner that no watch link covers pauses its robots earlier,
 * at its late mark ({@link #late()}), and resumes them, same node and epoch, when a renewal is acknowledged within the
 * lease; one that a link covers writes no mark, and is taken over by the link within about a second if it dies. The
 * lease still decides how long the slots of a frozen or cut-off owner that no link covers wait.
 */
public record SlotTiming(Duration heartbeat, Duration lease, Duration poll, Duration fenceMargin) {

    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(20);
    public static final Duration DEFAULT_POLL = Duration.ofSeconds(1);

    /** @throws IllegalArgumentException naming the offending settings when the rules above are broken */
    public SlotTiming {
        Objects.requireNonNull(heartbeat, "heartbeat");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(poll, "poll");
        Objects.requireNonNull(fenceMargin, "fenceMargin");
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("heartbeat " + format(heartbeat) + " must be more than 0");
        }
        if (lease.compareTo(heartbeat.multipliedBy(2)) <= 0) {
            throw new IllegalArgumentException(
                    "lease " + format(lease) + " must be more than twice the heartbeat " + format(heartbeat));
        }
        if (poll.isNegative() || poll.isZero()) {
            throw new IllegalArgumentException("poll " + format(poll) + " must be more than 0");
        }
        if (poll.compareTo(lease) >= 0) {
            throw new IllegalArgumentException(
                    "poll " + format(poll) + " must be less than the lease " + format(lease));
        }
        if (fenceMargin.isNegative() || fenceMargin.isZero() || fenceMargin.compareTo(lease.minus(heartbeat)) >= 0) {
            throw new IllegalArgumentException("fence margin " + format(fenceMargin)
                    + " must be more than 0 and less than the lease minus the heartbeat ("
                    + format(lease.minus(heartbeat)) + ")");
        }
    }

    /** Heartbeat, lease and poll as given, and the default fence margin (a tenth of the lease). */
    public static SlotTiming of(Duration heartbeat, Duration lease, Duration poll) {
        Objects.requireNonNull(lease, "lease");
        return new SlotTiming(heartbeat, lease, poll, lease.dividedBy(10));
    }

    public static SlotTiming defaults() {
        return of(DEFAULT_HEARTBEAT, DEFAULT_LEASE, DEFAULT_POLL);
    }

    /**
     * How old an owner's heartbeat is, by the database's clock, when the owner counts as late: two heartbeats, so that
     * the owner's renewal has most of a heartbeat to be answered before it must pause (with one and a half, a renewal
     * slower than a third of a heartbeat paused the robots). With fast failover, a standby may take a late slot over
     * early if its owner's process refuses connects; since a live process can be refused too (a REJECT rule, a moved
     * address, a closed listener), the owner itself pauses its robots before its heartbeat is this old (see
     * {@link #lateMargin()}), so that an early takeover never overlaps with its robots.
     */
    public Duration late() {
        return heartbeat.multipliedBy(2);
    }

    /**
     * An owner with fast failover pauses its robots once no renewal has been acknowledged for {@code late -
     * lateMargin}, counted from when the last acknowledged one was sent: a tenth of the late mark, as the fence margin
     * is a tenth of the lease. It covers clock rates and the fence timer's granularity; it leaves a renewal {@code 0.8
     * × heartbeat} to be answered before robots pause.
     */
    public Duration lateMargin() {
        return late().dividedBy(10);
    }

    /**
     * How long every database call on the renewal path may take: less than the heartbeat, so a hung call never delays
     * the next renewal.
     */
    public Duration operationTimeout() {
        return heartbeat.multipliedBy(3).dividedBy(4);
    }

    private static String format(Duration d) {
        return Durations.format(d);
    }
}
