package io.standby.spring;

import com.mongodb.client.MongoClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.standby.node.StandbyNode;
import io.standby.node.StandbyNodeBuilder;
import io.standby.node.web.NodeWeb;
import io.standby.node.web.StandbyMetrics;
import io.standby.robot.RobotFactory;
import io.standby.robot.runtime.RobotTypes;
import io.standby.slot.Durations;
import io.standby.slot.SlotListener;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * A Standby node in a Spring Boot application, from the {@code standby.*} properties.
 *
 * <ul>
 *   <li>Database: the application's {@link MongoClient} bean when it has one and {@code standby.mongo.uri} is unset
 *       (the node applies its timeouts and majority concerns to its own view, and leaves the client to Spring);
 *       otherwise the node opens and closes its own clients to {@code standby.mongo.uri}. Among several clients, the
 *       one marked {@link StandbyMongoClient} (or {@code @Primary}); several and none marked fail the start. The
 *       deprecated {@code standby.mongo} still sets the URI when {@code standby.mongo.uri} does not
 *       ({@link StandbyMongoUriAlias}).
 *   <li>Robots: every {@link RobotFactory} bean is a robot type, besides those on the class path and in
 *       {@code standby.plugins-dir}.
 *   <li>Listeners: every {@link SlotListener} bean is told of the node's slots, in {@code @Order}.
 *   <li>Pages: the node's own endpoint serves {@code /ready}, {@code /status} and the dashboard besides {@code /health}
 *       ({@link NodeWeb}).
 *   <li>Metrics: the node's meters go to the application's {@link MeterRegistry} ({@link StandbyMetrics}).
 *   <li>Lifecycle: {@link StandbyLifecycle} starts the node after the context is refreshed and stops it first on
 *       shutdown; the start fails if the node's stop does not fit in Spring's shutdown phase.
 * </ul>
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(StandbyNode.class)
@ConditionalOnBooleanProperty(name = StandbyProperties.PREFIX + ".enabled", matchIfMissing = true)
@EnableConfigurationProperties(StandbyProperties.class)
public class StandbyAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(StandbyAutoConfiguration.class);
    private static final String SHUTDOWN_PHASE_PREFIX = "spring.lifecycle";

    /** The node, built and checked but not started: {@link StandbyLifecycle} starts it. */
    @Bean
    @ConditionalOnMissingBean
    public StandbyNode standbyNode(
            StandbyProperties properties,
            Environment environment,
            @StandbyMongoClient ObjectProvider<MongoClient> standbyClient,
            ObjectProvider<MongoClient> clients,
            ListableBeanFactory beans,
            ObjectProvider<RobotFactory> factories,
            ObjectProvider<SlotListener> listeners,
            ObjectProvider<StandbyNodeCustomizer> customizers) {
        warnOfTheOldMongoName(environment);
        StandbyNodeBuilder builder = properties.applyTo(StandbyNode.builder()).extension(NodeWeb.pages());
        String uri = properties.getMongo().getUri();
        MongoClient client = uri == null ? applicationClient(standbyClient, clients, beans) : null;
        if (client != null) {
            String name = properties.getDatabase();
            builder.databases(
                    StandbyDatabase.of(client, name, properties.timing().operationTimeout()),
                    StandbyDatabase.of(client, name, StandbyNodeBuilder.ROBOT_OPERATION_TIMEOUT));
        } else if (uri != null) {
            builder.mongo(uri);
        }
        if (properties.getPluginsDir() != null) {
            builder.robotTypes(RobotTypes.discover(properties.getPluginsDir()));
        }
        builder.robots(factories.orderedStream().toArray(RobotFactory[]::new));
        listeners.orderedStream().reduce(SlotListener::inOrder).ifPresent(builder::listener);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /**
     * The application's client for the node: the one marked {@link StandbyMongoClient}, else the only or the
     * {@code @Primary} one; none if the application has none.
     *
     * @throws IllegalStateException if it has several and none is marked, naming them: falling back to a client of the
     *     node's own would put the slots in a database nobody chose
     */
    private static MongoClient applicationClient(
            ObjectProvider<MongoClient> marked, ObjectProvider<MongoClient> clients, ListableBeanFactory beans) {
        MongoClient client = marked.getIfAvailable(clients::getIfUnique);
        if (client != null) {
            return client;
        }
        String[] names = BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beans, MongoClient.class);
        if (names.length > 1) {
            throw new IllegalStateException("Standby cannot choose among " + names.length + " MongoClient beans ("
                    + String.join(", ", names) + "): mark the one that holds the slots with @"
                    + StandbyMongoClient.class.getSimpleName() + " (or @Primary), or set "
                    + StandbyMongoUriAlias.NEW + " for a client of the node's own");
        }
        return null;
    }

    /**
     * Past the phase's timeout Spring stops waiting and goes on to close the application's {@code MongoClient} while
     * the node still releases its slots; the standbys then wait out the lease instead of a poll.
     *
     * @throws InvalidConfigurationPropertyValueException on {@code standby.stop-timeout}, naming the phase's property
     *     and the value each would need
     */
    static void requireStopFitsInShutdownPhase(StandbyProperties properties, Duration phase) {
        Duration stop = properties.getStopTimeout();
        Duration after = stopAfterRobots(properties);
        Duration needs = stop.plus(after);
        if (needs.compareTo(phase) > 0) {
            String name = StandbyProperties.PREFIX + ".stop-timeout";
            String lower = phase.compareTo(after) > 0
                    ? " or lower " + name + " to at most " + Durations.format(phase.minus(after))
                    : "";
            throw new InvalidConfigurationPropertyValueException(
                    name,
                    Durations.format(stop),
                    "the node's stop takes up to " + Durations.format(needs) + " (the stop timeout, then "
                            + Durations.format(after) + " for a robot's last checkpoint and the release), more than "
                            + SHUTDOWN_PHASE_PREFIX + ".timeout-per-shutdown-phase (" + Durations.format(phase)
                            + "); raise that to at least " + Durations.format(needs) + lower);
        }
    }

    /**
     * What the node's stop may take beyond the stop timeout: a robot that returns at the deadline still writes its last
     * checkpoint (the robots' operation timeout), and then come three writes, each within the slots' operation timeout:
     * the node's draining report, the release, and leaving the registry. The owner document's removal after them may be
     * cut off: other nodes sweep it.
     */
    static Duration stopAfterRobots(StandbyProperties properties) {
        return StandbyNodeBuilder.ROBOT_OPERATION_TIMEOUT.plus(
                properties.timing().operationTimeout().multipliedBy(3));
    }

    /** Static: the binder asks for it before this class's beans exist. */
    @Bean
    @ConfigurationPropertiesBinding
    static StandbyMongoUriAlias standbyMongoUriAlias(Environment environment) {
        return new StandbyMongoUriAlias(environment);
    }

    private static void warnOfTheOldMongoName(Environment environment) {
        if (!StandbyMongoUriAlias.isSet(environment, StandbyMongoUriAlias.OLD)) {
            return;
        }
        if (StandbyMongoUriAlias.isSet(environment, StandbyMongoUriAlias.NEW)) {
            log.warn(
                    "{} is deprecated and ignored: {} is set; remove {}",
                    StandbyMongoUriAlias.OLD,
                    StandbyMongoUriAlias.NEW,
                    StandbyMongoUriAlias.OLD);
        } else {
            log.warn("{} is deprecated: use {}", StandbyMongoUriAlias.OLD, StandbyMongoUriAlias.NEW);
        }
    }

    /**
     * The lifecycle, once the node's stop is known to fit in Spring's shutdown phase
     * ({@code spring.lifecycle.timeout-per-shutdown-phase}, Boot's default when unset).
     */
    @Bean
    @ConditionalOnMissingBean
    public StandbyLifecycle standbyLifecycle(StandbyNode node, StandbyProperties properties, Environment environment) {
        requireStopFitsInShutdownPhase(
                properties,
                Binder.get(environment)
                        .bindOrCreate(SHUTDOWN_PHASE_PREFIX, LifecycleProperties.class)
                        .getTimeoutPerShutdownPhase());
        return new StandbyLifecycle(node);
    }

    /**
     * Micrometer is optional in the node's extensions; with it, the node measures itself into the application's
     * registry.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {

        @Bean
        StandbyNodeCustomizer standbyMeterRegistry(ObjectProvider<MeterRegistry> registries) {
            return builder -> {
                MeterRegistry registry = registries.getIfUnique();
                if (registry != null) {
                    builder.extension(StandbyMetrics.of(registry));
                }
            };
        }
    }
}
