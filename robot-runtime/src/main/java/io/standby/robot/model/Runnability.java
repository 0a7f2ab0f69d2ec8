package io.standby.robot.model;

import static io.standby.robot.model.RobotFields.DESIRED;
import static io.standby.robot.model.RobotFields.SLOT;
import static io.standby.robot.model.RobotFields.STATE;
import static io.standby.robot.model.RobotFields.TARGET;

import com.mongodb.client.model.Filters;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.bson.conversions.Bson;

/**
 * Whether a robot should run, judged once, in Java and as a query from the same fields: the node's decision
 * ({@code RobotDecision}), its take's filter ({@code RobotRules.takeFilter}) and the operator's placement
 * ({@code RobotTable}) all ask here.
 *
 * <p>A robot is <em>wanted</em> when the operator wants it running ({@code desired}) and it has not failed for good
 * ({@code state} FAILED, which only the operator's {@code start} clears); {@code state} otherwise only reports. It is
 * <em>runnable</em> in its slot when it is wanted and no move is pending ({@code target} missing, null, or its own
 * slot). Who runs it and at which epoch are the fence's and the take's conditions, not this.
 */
public final class Runnability {

    /** What the operator may want of a robot that should run. */
    private static final Set<Desired> WANTED = EnumSet.of(Desired.RUNNING);
    /** States after which a robot does not run until the operator starts it again. */
    private static final Set<RobotState> GIVEN_UP = EnumSet.of(RobotState.FAILED);

    private Runnability() {}

    /** Wanted running and not failed for good: it counts towards the load of the slot it is (or is going) in. */
    public static boolean wanted(RobotView robot) {
        return WANTED.contains(robot.desired()) && !GIVEN_UP.contains(robot.state());
    }

    /** Wanted, and not moving: its slot's owner should run it. */
    public static boolean runnable(RobotView robot) {
        return wanted(robot) && !robot.moving();
    }

    /**
     * {@link #runnable} as a filter on the robots of one slot. A missing {@code desired} reads as running and a missing
     * {@code state} as PENDING ({@link RobotCodec#parse}), so the filter names the values that exclude a robot rather
     * than those that admit one.
     */
    public static Bson filter(String slotId) {
        return FlatFilter.and(
                Filters.eq(SLOT, slotId),
                Filters.in(TARGET, Arrays.asList(null, slotId)),
                Filters.nin(
                        DESIRED,
                        EnumSet.complementOf(EnumSet.copyOf(WANTED)).stream()
                                .map(Desired::value)
                                .toList()),
                Filters.nin(STATE, GIVEN_UP.stream().map(RobotState::name).toList()));
    }
}
