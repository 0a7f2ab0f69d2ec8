package io.standby.robot;

import org.bson.Document;

/**
 * Creates robots of one type. Discovered with {@link java.util.ServiceLoader} from the node's class
 * path and from the jars in its {@code --plugins} directory: list the implementation in
 * {@code META-INF/services/io.standby.robot.RobotFactory}.
 */
public interface RobotFactory {

    /** The robot type this factory makes, e.g. {@code counter}; unique among the factories of a node. */
    String type();

    /**
     * A new robot for one run.
     *
     * @param config the robot's configuration document, as stored in its {@code config} field
     * @throws IllegalArgumentException if the configuration is unusable; the robot then fails with this message
     */
    Robot create(Document config);
}
