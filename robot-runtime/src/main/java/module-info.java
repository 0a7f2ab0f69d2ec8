/**
 * The robot runtime: it runs every robot of the slots a node owns, restores and fences their context, and gives the
 * operator's tables. The node ({@code io.standby.node}) assembles it; {@code io.standby.robot.internal} is open to that
 * module alone.
 */
// The node, which the internal package is exported to, is built after this module.
@SuppressWarnings("module")
module io.standby.robot.runtime {
    requires transitive io.standby.robot;
    requires transitive io.standby.slot;
    requires org.slf4j;

    // Robot types come from plugin jars and the class path, found with ServiceLoader (RobotTypes).
    uses io.standby.robot.RobotFactory;

    exports io.standby.robot.runtime;
    exports io.standby.robot.model;
    exports io.standby.robot.admin;
    exports io.standby.robot.internal to
            io.standby.node;
}
