package io.standby.cli;

import io.standby.slot.NodeId;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The demo's nodes: {@code standby node} processes on this JVM's class path, on free ports of 127.0.0.1, with timing
 * fast enough for a takeover within seconds and slow enough to watch. Closing stops them all.
 */
final class DemoNodes implements AutoCloseable {

    static final String HEARTBEAT = "1s";
    static final String LEASE = "5s";
    static final String POLL = "500ms";

    /** One node process and where its output goes. */
    record NodeProcess(NodeId id, Process process, Path log) {}

    private final List<NodeProcess> started = new ArrayList<>();

    /** Starts {@code count} nodes on the database at {@code uri}, each logging to {@code logs/node-PORT.log}. */
    List<NodeProcess> start(int count, String uri, Path logs) throws IOException {
        for (int port : freePorts(count)) {
            started.add(startNode(port, uri, logs));
        }
        return List.copyOf(started);
    }

    NodeProcess node(NodeId id) {
        return started.stream()
                .filter(n -> n.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("slot owned by " + id + ", which the demo did not start"));
    }

    private static NodeProcess startNode(int port, String uri, Path logs) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = logs.resolve("node-" + port + ".log");
        List<String> command =
                new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        if (Runtime.version().feature() >= 25) {
            // As the launcher does: exit without HotSpot's wait for threads parked in native code (docs/BENCHMARKS.md).
            command.add("-XX:UserThreadWaitAttemptsAtExit=0");
        }
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                StandbyCli.class.getName(),
                "node",
                "--ip",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--mongo",
                uri,
                "--heartbeat",
                HEARTBEAT,
                "--lease",
                LEASE,
                "--poll",
                POLL));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        return new NodeProcess(new NodeId("127.0.0.1", port), process, log);
    }

    /** Ports free right now and distinct from each other (holding all sockets until every port is chosen). */
    static List<Integer> freePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    /**
     * SIGTERM to every node still running, then SIGKILL to any still there after 15 s. Idempotent; says so on
     * {@code out} unless it is null.
     */
    void stop(PrintWriter out) {
        List<Process> alive = started.stream()
                .map(NodeProcess::process)
                .filter(Process::isAlive)
                .toList();
        if (alive.isEmpty()) {
            return;
        }
        if (out != null) {
            DemoCommand.say(out, "Stopping the " + alive.size() + " node(s) still running.");
        }
        alive.forEach(Process::destroy);
        for (Process process : alive) {
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stop(null);
    }
}
