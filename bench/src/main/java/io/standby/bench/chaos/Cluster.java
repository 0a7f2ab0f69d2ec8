package io.standby.bench.chaos;

import io.standby.bench.Children;
import io.standby.bench.Database;
import io.standby.cli.StandbyCli;
import io.standby.testing.ChildJvm;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestPorts;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes of a chaos run: the embedded database on a data directory, and {@code standby node}
 * processes, each reaching the database through a pausable proxy of its own. {@link #close} stops them all.
 */
final class Cluster implements AutoCloseable {

    static final String DB = "chaos";

    private final Path dir;
    private final Timing timing;
    private final boolean fastFailover;
    /** The nodes' watch lease, or null: no watch links. */
    private final Duration watchLease;
    private final Database database;
    private final List<Node> nodes = new ArrayList<>();

    /** Node timing flags, as {@code standby node} takes them. */
    record Timing(Duration heartbeat, Duration lease, Duration poll) {
        List<String> flags() {
            return List.of("--heartbeat", heartbeat.toMillis() + "ms", "--lease", lease.toMillis() + "ms",
                    "--poll", poll.toMillis() + "ms");
        }
    }

    /** One node: its name stays, its process and port may change with restarts. */
    final class Node {
        final String name;
        final TcpProxy proxy;
        int port;
        ChildJvm process;

        Node(String name) throws IOException {
            this.name = name;
            this.proxy = TcpProxy.to(database.uri());
            this.port = TestPorts.free(1).getFirst();
        }

        void start() {
            List<String> jvm = List.of("-Xmx256m", "-Dstandby.chaos.record=" + dir.resolve("records"),
                    "-Dstandby.chaos.node=" + name, "-Dstandby.chaos.mongo=" + proxy.uri());
            List<String> args = new ArrayList<>(List.of("node", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                    "--mongo", proxy.uri(), "--db", DB));
            args.addAll(timing.flags());
            if (!fastFailover) {
                // Only for the run that shows the verdict can fail: fast failover is the nodes' default.
                args.add("--no-fast-failover");
            }
            if (watchLease != null) {
                args.addAll(List.of("--watch-lease", watchLease.toMillis() + "ms"));
            }
            process = Children.standby(dir, name, jvm, args);
        }

        boolean running() {
            return process != null && process.isAlive();
        }

        /**
         * As a process supervisor would: a node that exited on its own (a restart that found the database
         * down exits after its first contact's 5 s) is started again. Returns what was done, for the
         * fault's detail, or an empty string if the node was running.
         */
        String revive() {
            if (running() || process == null) {
                return "";
            }
            int code = process.awaitExit(Duration.ofSeconds(1));
            start();
            return "it had exited (code " + code + ") and was started again first; ";
        }
    }

    Cluster(Path dir, int nodeCount, Timing timing, boolean fastFailover, Duration watchLease) {
        this.dir = dir;
        this.timing = timing;
        this.fastFailover = fastFailover;
        this.watchLease = watchLease;
        this.database = Database.onDisk(dir, dir.resolve("data"));
        try {
            for (int i = 1; i <= nodeCount; i++) {
                nodes.add(new Node("node-" + i));
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        }
    }

    void startNodes() {
        nodes.forEach(Node::start);
    }

    Database database() {
        return database;
    }

    List<Node> nodes() {
        return nodes;
    }

    Path dir() {
        return dir;
    }

    /**
     * A {@code standby} admin command, run in this process as the command line runs it (a JVM start per
     * command would leave few faults per minute); its output goes to cli.log. Returns its exit code.
     */
    int cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--mongo", database.uri(), "--db", DB));
        synchronized (Cluster.class) {
            PrintStream out = System.out;
            PrintStream err = System.err;
            try (PrintStream log = new PrintStream(new FileOutputStream(dir.resolve("cli.log").toFile(), true), true)) {
                log.println("$ standby " + String.join(" ", all));
                System.setOut(log);
                System.setErr(log);
                return StandbyCli.run(all.toArray(String[]::new));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                System.setOut(out);
                System.setErr(err);
            }
        }
    }

    /** kill -9 every node: what they wrote stays as it is while it is read. */
    void stopNodes() {
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.close();
            }
        }
    }

    /** Brings back whatever a fault left down: resumed proxies, continued and started nodes. */
    void heal() {
        for (Node node : nodes) {
            node.proxy.resume();
            if (node.running()) {
                node.process.signal("CONT");
            } else {
                node.start();
            }
        }
    }

    @Override
    public void close() {
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.close();
            }
            node.proxy.close();
        }
        database.close();
    }
}
