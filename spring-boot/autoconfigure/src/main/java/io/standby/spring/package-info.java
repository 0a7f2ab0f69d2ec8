/**
 * The Standby Spring Boot starter's auto-configuration: {@link io.standby.spring.StandbyProperties} under
 * {@code standby.*}, a {@link io.standby.node.StandbyNode} bean started and stopped by
 * {@link io.standby.spring.StandbyLifecycle}, and, with Actuator, the {@code standby} health and endpoint.
 */
package io.standby.spring;
