package io.standby.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real process for the tests and benchmarks that need one: a {@code standby} node, the embedded database, a peer's
 * job, the {@code ./standby} launcher. Failure tests kill it with SIGKILL, stop it with SIGTERM and pause it with
 * SIGSTOP/SIGCONT. Its output goes to {@code dir/name.log} (appended), where a test reads it. Whoever starts one closes
 * it; a shutdown hook stops those still running when this JVM is stopped (Ctrl-C, SIGTERM), so that no orphan keeps a
 * port or a lease.
 */
public final class ChildJvm implements AutoCloseable {

    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ChildJvm::close), "child-jvms"));
    }

    private final String name;
    private final Process process;
    private final Path log;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * {@code java [jvmArgs] -cp <this JVM's class path> mainClass args}, on this JVM's own {@code java}, with
     * {@code environment} added to this JVM's.
     */
    public static ChildJvm java(
            Path dir,
            String name,
            List<String> jvmArgs,
            Map<String, String> environment,
            String mainClass,
            List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(javaCommand());
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return exec(dir, name, command, environment, Set.of());
    }

    /** Any command, with {@code environment} added to this JVM's and the variables {@code unset} removed. */
    public static ChildJvm exec(
            Path dir, String name, List<String> command, Map<String, String> environment, Set<String> unset) {
        Path log = dir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        builder.environment().keySet().removeAll(unset);
        try {
            ChildJvm child = new ChildJvm(name, builder.start(), log);
            LIVE.add(child);
            child.process.onExit().thenRun(() -> LIVE.remove(child));
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + command.getFirst(), e);
        }
    }

    /** The {@code java} this JVM runs on: a child runs the same JDK as its test. */
    public static String javaCommand() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    /** Everything it printed so far; empty if nothing yet. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until it printed {@code text}.
     *
     * @throws AssertionError with its output if it exited first or {@code atMost} passed
     */
    public void awaitOutput(String text, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        // Waiting on the exit with a short timeout: returns at once if it dies, re-reads the log otherwise.
        while (!output().contains(text) && process.isAlive() && System.nanoTime() < deadline) {
            waitForExit(50);
        }
        if (!output().contains(text)) {
            throw new AssertionError(name + (process.isAlive() ? " did not print '" : " exited without printing '")
                    + text + "' within " + atMost + ":\n" + output());
        }
    }

    /**
     * SIGKILL, and waits until it is gone: no shutdown hook, no release.
     *
     * @throws IllegalStateException if it had already exited: whoever kills a process expects it alive
     */
    public void kill9() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " already exited (" + process.exitValue() + "):\n" + output());
        }
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** SIGTERM, the graceful stop; returns the exit code. */
    public int terminate(Duration atMost) {
        process.destroy();
        return awaitExit(atMost);
    }

    /** SIGSTOP or SIGCONT (or any other signal by name). */
    public void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + name + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Its exit code, once it exited.
     *
     * @throws IllegalStateException with its output if it still runs after {@code atMost}
     */
    public int awaitExit(Duration atMost) {
        if (!waitForExit(atMost.toMillis())) {
            throw new IllegalStateException(
                    name + " still running after " + atMost + " (log " + log + "):\n" + output());
        }
        return process.exitValue();
    }

    private boolean waitForExit(long millis) {
        try {
            return process.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Gone for sure: a stopped process is continued first so that the kill is not left pending. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (RuntimeException ignored) {
                // it may have exited in between
            }
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
