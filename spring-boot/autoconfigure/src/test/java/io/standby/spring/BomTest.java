package io.standby.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * standby-bom has no parent (so that it manages Standby's artifacts only): its version and its list must be kept with
 * the project's by hand, and this test is the hand. Run from spring-boot/autoconfigure.
 */
class BomTest {

    private static final Path ROOT = Path.of("../..");
    private static final Pattern ARTIFACT = Pattern.compile("<artifactId>([^<]+)</artifactId>");

    @Test
    void theBomHasTheProjectsVersionAndEveryPublishedModule() throws IOException {
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        assertThat(first("<version>([^<]+)</version>", bom)).isEqualTo(first("<version>([^<]+)</version>", parent));
        assertThat(first("<standby.version>([^<]+)</standby.version>", bom))
                .isEqualTo(first("<version>([^<]+)</version>", parent));

        Set<String> managed = new TreeSet<>();
        Matcher m = ARTIFACT.matcher(
                bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>")));
        while (m.find()) {
            managed.add(m.group(1));
        }
        // Published: the modules that attach a javadoc jar, and the starter (a pom with an empty jar).
        Set<String> published = new TreeSet<>(Set.of("standby-spring-boot-starter"));
        try (Stream<Path> poms = Files.walk(ROOT, 3)) {
            for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml"))
                    .toList()) {
                String text = Files.readString(pom);
                if (!pom.normalize().equals(ROOT.resolve("pom.xml").normalize())
                        && text.contains("<artifactId>maven-javadoc-plugin</artifactId>")) {
                    Matcher own = ARTIFACT.matcher(text.substring(text.indexOf("</parent>")));
                    assertThat(own.find()).isTrue();
                    published.add(own.group(1));
                }
            }
        }
        assertThat(managed).isEqualTo(published);
    }

    private static String first(String regex, String text) {
        Matcher m = Pattern.compile(regex).matcher(text.substring(text.indexOf("<artifactId>")));
        assertThat(m.find()).as(regex).isTrue();
        return m.group(1);
    }
}
