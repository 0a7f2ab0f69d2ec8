package io.standby.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.NodeConfig;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Bad values stop the application at startup with the property, the value and the reason, before the node binds or
 * connects anything (no database is needed to see them).
 */
class StandbyPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(StandbyAutoConfiguration.class, StandbyActuatorAutoConfiguration.class))
            .withPropertyValues("standby.ip=127.0.0.1", "standby.port=7700", "standby.mongo.uri=mongodb://127.0.0.1:9");

    private String startupFailure(String... properties) {
        String[] message = new String[1];
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = context.getStartupFailure();
            StringBuilder all = new StringBuilder();
            for (Throwable t = cause; t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
            }
            message[0] = all.toString();
        });
        return message[0];
    }

    @Test
    void aLeaseNotAboveTwoHeartbeatsIsRejectedNamingTheRule() {
        assertThat(startupFailure("standby.heartbeat=2s", "standby.lease=3s"))
                .contains("origin \"standby.lease\"")
                .contains("lease 3s must be more than twice the heartbeat 2s");
    }

    @Test
    void aMissingIdentityIsRejectedNamingTheProperty() {
        assertThat(startupFailure("standby.ip=")).contains("set standby.ip");
    }

    @Test
    void aBadIpPortOrMaxSlotsIsRejectedWithTheValue() {
        assertThat(startupFailure("standby.ip=node-1"))
                .contains("invalid ip 'node-1': expected a literal IPv4 or IPv6 address");
        assertThat(startupFailure("standby.port=70000")).contains("invalid port 70000: expected 1-65535");
        assertThat(startupFailure("standby.max-slots=0")).contains("max slots 0 must be at least 1");
    }

    @Test
    void aValueOfTheWrongTypeIsRejectedNamingTheProperty() {
        assertThat(startupFailure("standby.port=abc")).contains("standby.port").contains("abc");
        assertThat(startupFailure("standby.heartbeat=soon"))
                .contains("standby.heartbeat")
                .contains("soon");
    }

    @Test
    void aBadUriDatabaseOrPluginDirectoryIsRejected() {
        assertThat(startupFailure("standby.mongo.uri=http://x"))
                .contains("standby.mongo.uri")
                .contains("invalid MongoDB URI");
        assertThat(startupFailure("standby.database=a b")).contains("invalid database name");
        assertThat(startupFailure("standby.plugins-dir=/no/such/dir"))
                .contains("invalid plugin directory '/no/such/dir': not a directory");
    }

    @Test
    void aBadWatchLeaseOrPortIsRejectedNamingTheProperty() {
        assertThat(startupFailure("standby.watch-lease=50ms"))
                .contains("standby.watch-lease")
                .contains("invalid watch lease 50ms: must be at least 100ms");
        assertThat(startupFailure("standby.watch-lease=4s"))
                .contains("standby.watch-lease")
                .contains("invalid watch lease 4s: must be shorter than the late mark 4s");
        assertThat(startupFailure("standby.watch-port=70000"))
                .contains("standby.watch-port")
                .contains("invalid watch port 70000");
        // Links off: their settings are not judged.
        StandbyProperties off = new StandbyProperties();
        off.setIp("127.0.0.1");
        off.setPort(7700);
        off.setWatchLinks(false);
        off.setWatchLease(java.time.Duration.ofMillis(50));
        org.springframework.validation.Errors errors =
                new org.springframework.validation.BeanPropertyBindingResult(off, "standby");
        off.validate(off, errors);
        assertThat(errors.getAllErrors()).isEmpty();
    }

    /**
     * Past the phase's timeout Spring goes on and closes the application's MongoClient while the node still releases
     * its slots, so the standbys would wait out the lease.
     */
    @Test
    void aStopTimeoutThatDoesNotFitInTheShutdownPhaseFailsTheStartNamingBothProperties() {
        assertThat(startupFailure("standby.stop-timeout=20s"))
                .contains("standby.stop-timeout")
                .contains("spring.lifecycle.timeout-per-shutdown-phase (30s)")
                .contains("the node's stop takes up to 34500ms")
                .contains("at least 34500ms")
                .contains("at most 15500ms");
        assertThat(startupFailure(
                        "standby.stop-timeout=20s",
                        "spring.lifecycle.timeout-per-shutdown-phase=34s",
                        "standby.heartbeat=1s",
                        "standby.lease=3s"))
                .as("the release's share follows the heartbeat: 20s + 10s + 2250ms fits in 34s")
                .doesNotContain("timeout-per-shutdown-phase");
    }

    @Test
    void theStopFitsInTheShutdownPhaseUpToItsLastMillisecond() {
        StandbyProperties properties = new StandbyProperties();
        properties.setStopTimeout(Duration.ofSeconds(20));
        StandbyAutoConfiguration.requireStopFitsInShutdownPhase(properties, Duration.ofMillis(34_500));
        assertThatThrownBy(() ->
                        StandbyAutoConfiguration.requireStopFitsInShutdownPhase(properties, Duration.ofMillis(34_499)))
                .hasMessageContaining("standby.stop-timeout");
        StandbyAutoConfiguration.requireStopFitsInShutdownPhase(new StandbyProperties(), Duration.ofSeconds(30));
    }

    @Test
    void theDocumentedDefaultsAreTheNodesOwn() {
        StandbyProperties defaults = new StandbyProperties();
        assertThat(defaults.timing()).isEqualTo(SlotTiming.defaults());
        assertThat(defaults.getMaxSlots()).isEqualTo(NodeConfig.DEFAULT_MAX_SLOTS);
        assertThat(defaults.getDatabase()).isEqualTo(StandbyDatabase.DEFAULT_NAME);
        assertThat(defaults.getStopTimeout()).isEqualTo(RuntimeConfig.DEFAULT_STOP_TIMEOUT);
        assertThat(defaults.isFastFailover()).isTrue();
        assertThat(defaults.isWatchLinks()).isTrue();
        assertThat(defaults.getWatchLease())
                .as("unset: the node's default, 1s or the heartbeat")
                .isNull();
        assertThat(defaults.getWatchPort()).isZero();
    }
}
