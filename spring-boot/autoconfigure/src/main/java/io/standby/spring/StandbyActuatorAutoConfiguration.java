package io.standby.spring;

import io.standby.node.StandbyNode;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The node in Actuator, when the application has it: the {@code standby} health indicator
 * ({@code management.health.standby.enabled}) and the {@code standby} endpoint (exposed like any other, e.g.
 * {@code management.endpoints.web.exposure.include=health,standby}).
 */
@AutoConfiguration(after = StandbyAutoConfiguration.class)
@ConditionalOnBean(StandbyNode.class)
public class StandbyActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("standby")
    @ConditionalOnBean(StandbyLifecycle.class)
    static class Health {

        /** Named so that the indicator is {@code standby}: Boot drops the {@code HealthIndicator} suffix. */
        @Bean
        @ConditionalOnMissingBean(name = "standbyHealthIndicator")
        StandbyHealthIndicator standbyHealthIndicator(StandbyNode node, StandbyLifecycle lifecycle) {
            return new StandbyHealthIndicator(node, lifecycle);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    @ConditionalOnAvailableEndpoint(endpoint = StandbyEndpoint.class)
    static class Endpoints {

        @Bean
        @ConditionalOnMissingBean
        StandbyEndpoint standbyEndpoint(StandbyNode node) {
            return new StandbyEndpoint(node);
        }
    }
}
