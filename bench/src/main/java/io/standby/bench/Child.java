package io.standby.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A JVM this bench started from its own class path: a {@code standby} node, the embedded database, a
 * peer's job. Its output goes to a log file. The bench stops every child it started ({@link #close}), and a
 * shutdown hook stops those still running if the bench itself is stopped (Ctrl-C, SIGTERM).
 */
public final class Child implements AutoCloseable {

    private static final int JAVA_VERSION = Runtime.version().feature();
    /** Every child still running: a bench stopped by Ctrl-C or SIGTERM takes them with it. */
    private static final Set<Child> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Child::close), "bench-children"));
    }

    private final String name;
    private final Process process;
    private final Path log;

    private Child(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** {@code java [jvmArgs] -cp <this class path> mainClass args}, output to {@code dir/name.log} (appended). */
    public static Child start(Path dir, String name, List<String> jvmArgs, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-XX:+UseSerialGC");
        if (JAVA_VERSION >= 25) {
            // As ./standby passes: no 300 ms wait at exit for the JDK's own socket poller (docs/BENCHMARKS.md).
            command.add("-XX:UserThreadWaitAttemptsAtExit=0");
        }
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        Path log = dir.resolve(name + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            Child child = new Child(name, process, log);
            LIVE.add(child);
            process.onExit().thenRun(() -> LIVE.remove(child));
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name, e);
        }
    }

    /** A {@code standby} command (node, mongo, slots ...) in its own JVM. */
    public static Child standby(Path dir, String name, List<String> jvmArgs, List<String> args) {
        return start(dir, name, jvmArgs, "io.standby.cli.StandbyCli", args);
    }

    /** Ports free right now and distinct from each other. */
    public static List<Integer> freePorts(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // only a probe
                }
            }
        }
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

    /** SIGKILL, and wait until it is gone: no shutdown hook, no release. */
    public void kill9() {
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
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
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

    public int awaitExit(Duration atMost) {
        try {
            if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " still running after " + atMost.toMillis() + " ms (log: " + log + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return process.exitValue();
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
