package io.standby.bench;

import io.standby.testing.ChildJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JVMs this bench starts from its own class path (a {@code standby} node, the embedded database, a peer's job),
 * with the options every bench child gets. The launcher itself is test-support's {@link ChildJvm}, which the tests use
 * too.
 */
public final class Children {

    private static final int JAVA_VERSION = Runtime.version().feature();

    private Children() {}

    /** {@code java [bench options] [jvmArgs] -cp <this class path> mainClass args}, output to {@code dir/name.log}. */
    public static ChildJvm start(Path dir, String name, List<String> jvmArgs, String mainClass, List<String> args) {
        List<String> options = new ArrayList<>();
        options.add("-XX:+UseSerialGC");
        if (JAVA_VERSION >= 25) {
            // As ./standby passes: no 300 ms wait at exit for the JDK's own socket poller (docs/BENCHMARKS.md).
            options.add("-XX:UserThreadWaitAttemptsAtExit=0");
        }
        options.addAll(jvmArgs);
        return ChildJvm.java(dir, name, options, Map.of(), mainClass, args);
    }

    /**
     * A {@code standby} command through a launcher script ({@code ./standby}), as a user runs it: the script's own JVM
     * options, and {@code jvmArgs} in {@code STANDBY_JAVA_OPTS}. The script execs the JVM, so the child's pid is the
     * JVM's (jcmd and signals reach it).
     */
    public static ChildJvm launcher(Path script, Path dir, String name, List<String> jvmArgs, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(script.toString());
        command.addAll(args);
        return ChildJvm.exec(dir, name, command, Map.of("STANDBY_JAVA_OPTS", String.join(" ", jvmArgs)), Set.of());
    }

    /**
     * {@code standby node} on 127.0.0.1:{@code port} against {@code mongoUri}'s database {@code db}: the arguments
     * every bench's node starts with, in a list the caller may add its own flags to.
     */
    public static List<String> nodeArgs(int port, String mongoUri, String db) {
        return new ArrayList<>(List.of(
                "node", "--ip", "127.0.0.1", "--port", Integer.toString(port), "--mongo", mongoUri, "--db", db));
    }

    /** A {@code standby} command (node, mongo, slots ...) in its own JVM. */
    public static ChildJvm standby(Path dir, String name, List<String> jvmArgs, List<String> args) {
        return start(dir, name, jvmArgs, "io.standby.cli.StandbyCli", args);
    }
}
