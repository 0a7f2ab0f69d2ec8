package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The limits the team keeps, checked by the build so that nobody counts by hand: the protocol's main files stay short
 * enough to read in one sitting, no line of Java is wider than the formatter's, and a test waits on facts, not on the
 * clock, except where it says why it must. Reads the source tree of the whole repository, from any module's directory.
 */
class HouseRulesTest {

    /** The most lines a main file of slot-core may have. */
    static final int SLOT_CORE_MAX_LINES = 350;
    /** The longest line of Java, main or test; the formatter (mvn verify on JDK 21 or later) keeps to it too. */
    static final int MAX_LINE = 120;
    /** The most {@code Thread.sleep} calls in all tests together, each with its reason. */
    static final int MAX_SLEEPS = 3;
    /** What the comment just above a sleep starts its reason with. */
    static final String SLEEP_REASON = "A sleep on purpose";
    /** A call, not the name in a string. */
    private static final Pattern SLEEP = Pattern.compile("(?<!\")\\bThread\\.sleep\\(");

    @Test
    void everyMainFileOfSlotCoreHasAtMost350Lines() {
        List<String> over = new ArrayList<>();
        for (Path file : javaFiles(root().resolve("slot-core/src/main/java"))) {
            int lines = lines(file).size();
            if (lines > SLOT_CORE_MAX_LINES) {
                over.add(root().relativize(file) + ": " + lines);
            }
        }
        assertEquals(List.of(), over, "slot-core main files over " + SLOT_CORE_MAX_LINES + " lines");
    }

    @Test
    void everyLineOfJavaHasAtMost120Characters() {
        List<String> over = new ArrayList<>();
        for (Path file : sources("src/main/java", "src/test/java")) {
            List<String> lines = lines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).length() > MAX_LINE) {
                    over.add(root().relativize(file) + ":" + (i + 1) + ": "
                            + lines.get(i).length());
                }
            }
        }
        assertTrue(sources("src/main/java").size() > 100, "reads every module's sources");
        assertEquals(List.of(), over, "lines over " + MAX_LINE + " characters");
    }

    @Test
    void testsSleepAtMostThreeTimesAndSayWhyEachTime() {
        List<String> sleeps = new ArrayList<>();
        List<String> unexplained = new ArrayList<>();
        for (Path file : sources("src/test/java")) {
            List<String> lines = lines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (SLEEP.matcher(line).find() && !line.startsWith("*") && !line.startsWith("//")) {
                    String where = root().relativize(file) + ":" + (i + 1);
                    sleeps.add(where);
                    if (lines.subList(Math.max(0, i - 4), i).stream()
                            .noneMatch(l -> l.contains("// " + SLEEP_REASON))) {
                        unexplained.add(where);
                    }
                }
            }
        }
        assertTrue(
                sleeps.size() <= MAX_SLEEPS, sleeps.size() + " sleeps in tests, at most " + MAX_SLEEPS + ": " + sleeps);
        assertEquals(
                List.of(),
                unexplained,
                "sleeps without a '// " + SLEEP_REASON + ": why' comment in the four lines above");
    }

    /**
     * {@code ./standby} and {@code scripts/bench} build with {@code -Dmaven.test.skip=true}, which compiles no test and
     * packages no test jar but still resolves every test dependency: one module's tests on another's test jar then fail
     * that build on any machine whose Maven repository never had the jar installed (a fresh clone's first
     * {@code ./standby demo}).
     */
    @Test
    void noModuleDependsOnAnothersTestJar() {
        List<String> found = new ArrayList<>();
        try (Stream<Path> poms = Files.walk(root(), 4)) {
            for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml")
                            && !p.toString().contains("/target/")
                            && !p.toString().contains("/node_modules/"))
                    .sorted()
                    .toList()) {
                if (Files.readString(pom).matches("(?s).*<type>\\s*test-jar\\s*</type>.*")) {
                    found.add(root().relativize(pom).toString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertEquals(List.of(), found, "poms with a test-jar dependency");
    }

    /** The repository's root: the first directory up from here with the parent pom and slot-core. */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null
                && !(Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("slot-core")))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no repository root above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** The Java files under each module's {@code roots} (e.g. src/main/java), all modules together. */
    private static List<Path> sources(String... roots) {
        // Modules sit one or two levels down (slot-core, spring-boot/autoconfigure); build output is no source.
        try (Stream<Path> dirs = Files.walk(root(), 5)) {
            List<Path> found = dirs.filter(p -> !p.toString().contains("/target/")
                            && !p.toString().contains("/node_modules/")
                            && Stream.of(roots).anyMatch(r -> p.endsWith(Path.of(r))))
                    .toList();
            return found.stream().flatMap(dir -> javaFiles(dir).stream()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> javaFiles(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
