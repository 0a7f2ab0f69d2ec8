package io.standby.robot;

import org.bson.Document;

/**
 * Creates robots of one type. Discovered with {@link java.util.ServiceLoader} from the node's class path and from the
 * jars in its {@code --plugins} directory: list the implementation in
 * {@code META-INF/services/io.standby.robot.RobotFactory}.
 */
public interface RobotFactory {

    /** The robot type this factory makes, e.g. {@code counter}; unique among the factories of a node. */
    String type();

    /**
     * Checks a configuration before a robot is added with it ({@code standby robot add}), so that a bad one is refused
     * at once rather than failing on a node later. The default accepts every configuration; {@link #create} must still
     * check, since a robot's config can be changed in the database directly.
     *
     * @throws IllegalArgumentException naming the bad value
     */
    default void validate(Document config) {}

    /**
     * A new robot for one run.
     *
     * @param config the robot's configuration document, as stored in its {@code config} field
     * @throws IllegalArgumentException if the configuration is unusable; the robot then fails with this message
     */
    Robot create(Document config);
}
