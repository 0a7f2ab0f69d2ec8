package io.standby.robot.internal;

import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import java.lang.invoke.MethodHandles;
import java.util.Objects;

/**
 * The robot API's constructors over internal parts, for the project's own modules only: the simulation builds the
 * operator's robot table over its own store. As with the slot layer's {@code ApiAccess}, the API keeps them
 * package-private and registers them here when it is loaded, so no public constructor names an internal type.
 */
public final class RobotApiAccess {

    /** What the API registers: its hidden constructors. */
    public interface Constructors {
        RobotTable robotTable(RobotDocuments robots, RobotIds ids, SlotTable slots);
    }

    private static volatile Constructors constructors;

    private RobotApiAccess() {}

    /**
     * Called once, by the API when it is loaded.
     *
     * @throws IllegalStateException on a second call
     */
    public static synchronized void register(Constructors api) {
        if (constructors != null) {
            throw new IllegalStateException("the robot API's constructors are registered already");
        }
        constructors = Objects.requireNonNull(api, "api");
    }

    /** A table over any store of robots and slots: the simulation drives this very table over its own database. */
    public static RobotTable robotTable(RobotDocuments robots, RobotIds ids, SlotTable slots) {
        Constructors api = constructors;
        if (api == null) {
            try {
                // RobotTable registers when it is initialized; nothing else may have touched it yet.
                MethodHandles.lookup().ensureInitialized(RobotTable.class);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            api = constructors;
        }
        return api.robotTable(robots, ids, slots);
    }
}
