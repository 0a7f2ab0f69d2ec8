package io.standby.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A real {@code standby} JVM started from the test classpath, for failure tests that need a real
 * process: kill -9, SIGTERM, SIGSTOP/SIGCONT. Output goes to a file the test can read.
 */
final class StandbyProcess implements AutoCloseable {

    private final Process process;
    private final Path output;

    private StandbyProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    static StandbyProcess start(Path dir, String name, String... args) throws IOException {
        return start(dir, name, List.of(), args);
    }

    /** With {@code jvmArgs} too, e.g. {@code -Dstandby.log.builtin=true} for the product's own logging. */
    static StandbyProcess start(Path dir, String name, List<String> jvmArgs, String... args) throws IOException {
        return start(dir, name, jvmArgs, Map.of(), args);
    }

    /** With {@code environment} added to this JVM's, e.g. {@code STANDBY_PORT} for a node. */
    static StandbyProcess start(Path dir, String name, List<String> jvmArgs, Map<String, String> environment, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(StandbyCli.class.getName());
        command.addAll(List.of(args));
        Path output = dir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Process process = builder
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        return new StandbyProcess(process, output);
    }

    /**
     * {@code ./standby ARGS} at the repository's root: the launcher script users run, on the jar that
     * {@code mvn package} built, with this test's JDK. Only for tests that run after the package phase
     * (failsafe's {@code *IT}): before it, the launcher would find no jar, or an old one, and build it.
     *
     * @throws IllegalStateException if the jar is missing or older than a source or pom
     */
    static StandbyProcess launch(Path dir, String name, String... args) throws IOException {
        Path root = DockerFilesTest.root();
        requireFreshJar(root);
        List<String> command = new ArrayList<>(List.of(root.resolve("standby").toString()));
        command.addAll(List.of(args));
        Path output = dir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("STANDBY_JAVA", ProcessHandle.current().info().command().orElseThrow());
        // The launcher's own JVM options only; nothing of the user's environment.
        builder.environment().remove("STANDBY_JAVA_OPTS");
        return new StandbyProcess(builder.start(), output);
    }

    /** What the launcher checks before it builds: the same rule, so that a test never starts a nested build. */
    private static void requireFreshJar(Path root) throws IOException {
        Path jar = root.resolve("cli/target/standby.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: these tests run after 'mvn package' (mvn verify)");
        }
        java.nio.file.attribute.FileTime built = Files.getLastModifiedTime(jar);
        try (var files = Files.walk(root)) {
            Path newer = files.filter(f -> !f.startsWith(root.resolve(".git")))
                    .filter(f -> f.toString().contains("/src/main/") || f.getFileName().toString().equals("pom.xml"))
                    .filter(f -> {
                        try {
                            return Files.getLastModifiedTime(f).compareTo(built) > 0;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .findFirst().orElse(null);
            if (newer != null) {
                throw new IllegalStateException(newer + " is newer than " + jar + ": run 'mvn package' first");
            }
        }
    }

    /** Ports free right now and distinct from each other: the demo's own choice of ports. */
    static List<Integer> freePorts(int count) throws IOException {
        return DemoCommand.freePorts(count);
    }

    long pid() {
        return process.pid();
    }

    String output() {
        try {
            return Files.readString(output);
        } catch (IOException e) {
            return "";
        }
    }

    void awaitOutput(String text, Duration atMost) {
        await().atMost(atMost).until(() -> output().contains(text) || !process.isAlive());
        if (!output().contains(text)) {
            throw new AssertionError("process exited without printing '" + text + "':\n" + output());
        }
    }

    /** SIGKILL: no shutdown hook, no release. */
    void kill9() throws InterruptedException {
        if (!process.isAlive()) {
            throw new IllegalStateException("already dead:\n" + output());
        }
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("still alive 30s after SIGKILL");
        }
    }

    /** SIGTERM: the graceful stop. Returns the exit code. */
    int terminate(Duration atMost) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("did not stop within " + atMost + " after SIGTERM:\n" + output());
        }
        return process.exitValue();
    }

    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " failed");
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    int waitFor(Duration atMost) throws InterruptedException {
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running after " + atMost + ":\n" + output());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            signal("CONT");
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
