package io.standby.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * The starter's tests run on the Spring Boot the build names: 4.0.x by default, 4.1.x with {@code -P spring-boot-4.1}
 * (.ci/run runs both). Without this, a BOM import that stopped following {@code spring-boot.version} would leave the
 * second pass testing the first line again, and green.
 */
class SpringBootLineTest {

    @Test
    void theTestsRunOnTheSpringBootTheBuildNames() {
        String named = System.getProperty("standby.spring-boot.version");
        assumeTrue(named != null, "run by Maven, which names the version");
        assertThat(SpringBootVersion.getVersion()).isEqualTo(named);
    }
}
