package io.standby.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata the jar ships, which IDEs complete from and which flags renamed properties: it merges what
 * the processor writes from {@link StandbyProperties} with the hand-written additional metadata.
 */
class StandbyMetadataTest {

    private static List<Document> properties() throws IOException {
        try (InputStream in =
                StandbyMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the processor wrote the metadata").isNotNull();
            return Document.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                    .getList("properties", Document.class);
        }
    }

    private static Optional<Document> property(String name) throws IOException {
        return properties().stream()
                .filter(p -> name.equals(p.getString("name")))
                .findFirst();
    }

    @Test
    void theUriIsStandbyMongoUriAndTheOldNameIsADeprecatedAliasForIt() throws IOException {
        assertThat(property("standby.mongo.uri"))
                .hasValueSatisfying(uri -> assertThat(uri.getString("type")).isEqualTo("java.lang.String"));
        assertThat(property("standby.mongo")).hasValueSatisfying(old -> {
            Document deprecation = old.get("deprecation", Document.class);
            assertThat(deprecation).isNotNull();
            assertThat(deprecation.getString("replacement")).isEqualTo("standby.mongo.uri");
            assertThat(deprecation.getString("level")).isEqualTo("warning");
        });
    }

    /** Boot's own indicators each have one; without it, IDEs flag the property as unknown. */
    @Test
    void theStandbyHealthIndicatorCanBeTurnedOffByAKnownProperty() throws IOException {
        assertThat(property("management.health.standby.enabled")).hasValueSatisfying(enabled -> {
            assertThat(enabled.getString("type")).isEqualTo("java.lang.Boolean");
            assertThat(enabled.getBoolean("defaultValue")).isTrue();
        });
    }
}
