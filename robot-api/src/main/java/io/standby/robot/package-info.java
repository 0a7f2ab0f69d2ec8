/**
 * The robot SPI: what a robot author implements ({@link io.standby.robot.Robot}, {@link io.standby.robot.RobotFactory})
 * and what a running robot can do ({@link io.standby.robot.RobotContext}). A plugin jar depends on this artifact alone;
 * nodes find its factories with {@link java.util.ServiceLoader}.
 */
package io.standby.robot;
