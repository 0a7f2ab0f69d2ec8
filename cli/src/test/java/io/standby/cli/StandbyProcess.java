package io.standby.cli;

import io.standby.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A real {@code standby} JVM started from the test classpath, for failure tests that need a real process: kill -9,
 * SIGTERM, SIGSTOP/SIGCONT. The launcher is test-support's {@link ChildJvm}; this adds the command line of
 * {@code standby} and a fresh log per start, so that a restarted node's output is its own.
 */
final class StandbyProcess {

    private StandbyProcess() {}

    static ChildJvm start(Path dir, String name, String... args) throws IOException {
        return start(dir, name, List.of(), args);
    }

    /** With {@code jvmArgs} too, e.g. {@code -Dstandby.log.builtin=true} for the product's own logging. */
    static ChildJvm start(Path dir, String name, List<String> jvmArgs, String... args) throws IOException {
        return start(dir, name, jvmArgs, Map.of(), args);
    }

    /** With {@code environment} added to this JVM's, e.g. {@code STANDBY_PORT} for a node. */
    static ChildJvm start(Path dir, String name, List<String> jvmArgs, Map<String, String> environment, String... args)
            throws IOException {
        List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
        options.addAll(jvmArgs);
        Files.deleteIfExists(dir.resolve(name + ".log"));
        return ChildJvm.java(dir, name, options, environment, StandbyCli.class.getName(), List.of(args));
    }

    /**
     * {@code ./standby ARGS} at the repository's root: the launcher script users run, on the jar that {@code mvn
     * package} built, with this test's JDK. Only for tests that run after the package phase (failsafe's {@code *IT}):
     * before it, the launcher would find no jar, or an old one, and build it.
     *
     * @throws IllegalStateException if the jar is missing or older than a source or pom
     */
    static ChildJvm launch(Path dir, String name, String... args) throws IOException {
        return launch(dir, name, Map.of(), args);
    }

    /**
     * As {@link #launch(Path, String, String...)}, with {@code environment} set, e.g. {@code STANDBY_JAVA_OPTS}.
     * Whatever of {@link #JVM_OPTION_VARIABLES} it does not set is removed: the launcher's own JVM options only.
     */
    static ChildJvm launch(Path dir, String name, Map<String, String> environment, String... args) throws IOException {
        Path root = HouseRulesTest.root();
        requireFreshJar(root);
        List<String> command = new ArrayList<>(List.of(root.resolve("standby").toString()));
        command.addAll(List.of(args));
        Files.deleteIfExists(dir.resolve(name + ".log"));
        Map<String, String> set = new HashMap<>(environment);
        set.put("STANDBY_JAVA", ChildJvm.javaCommand());
        Set<String> unset = new HashSet<>(JVM_OPTION_VARIABLES);
        unset.removeAll(environment.keySet());
        return ChildJvm.exec(dir, name, command, set, unset);
    }

    /**
     * Where a {@code java} started by the launcher takes options from besides its command line: the launcher's
     * variable, then those the JVM reads by itself ({@code _JAVA_OPTIONS} is HotSpot's, undocumented but read).
     */
    static final List<String> JVM_OPTION_VARIABLES =
            List.of("STANDBY_JAVA_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS");

    /** What the launcher checks before it builds: the same rule, so that a test never starts a nested build. */
    private static void requireFreshJar(Path root) throws IOException {
        Path jar = root.resolve("cli/target/standby.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: these tests run after 'mvn package' (mvn verify)");
        }
        java.nio.file.attribute.FileTime built = Files.getLastModifiedTime(jar);
        try (var files = Files.walk(root)) {
            Path newer = files.filter(f -> !f.startsWith(root.resolve(".git")))
                    .filter(f -> f.toString().contains("/src/main/")
                            || f.getFileName().toString().equals("pom.xml"))
                    .filter(f -> {
                        try {
                            return Files.getLastModifiedTime(f).compareTo(built) > 0;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .findFirst()
                    .orElse(null);
            if (newer != null) {
                throw new IllegalStateException(newer + " is newer than " + jar + ": run 'mvn package' first");
            }
        }
    }

    /** Ports free right now and distinct from each other. */
    static List<Integer> freePorts(int count) {
        return io.standby.testing.TestPorts.free(count);
    }
}
