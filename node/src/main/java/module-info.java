/**
 * A whole node: {@code StandbyNode} and its builder join the slot protocol and the robot runtime on one address, which
 * the node's HTTP endpoint holds, and take extensions such as {@code io.standby.node.web}.
 */
module io.standby.node {
    requires transitive io.standby.robot.runtime;
    requires jdk.httpserver;
    requires org.slf4j;

    exports io.standby.node;
}
