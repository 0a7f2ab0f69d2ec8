package io.standby.bench.chaos;

import io.standby.bench.Children;
import io.standby.bench.Database;
import io.standby.cli.StandbyCli;
import io.standby.slot.SlotTiming;
import io.standby.slot.WatchLinks;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The processes of a chaos run: the embedded database on a data directory, and {@code standby node} processes, each
 * reaching the database through a pausable proxy of its own. {@link #close} stops them all.
 */
final class Cluster implements AutoCloseable {

    static final String DB = "chaos";

    private final Path dir;
    private final Timing timing;
    private final boolean fastFailover;
    private final Watch watch;
    /** The watch lease in force, or null: no watch links. */
    private final Duration watchLease;

    private final Database database;
    private final List<Node> nodes = new ArrayList<>();
    /** The last {@code /metrics} read of each node process, by pid (only with watch links). */
    private final Map<Long, NodeScrape> scrapes = new ConcurrentHashMap<>();
    /** When each node process this cluster killed with SIGKILL was last known alive: just before the kill. */
    private final Map<Long, Long> killedAt = new ConcurrentHashMap<>();

    /** Node timing flags, as {@code standby node} takes them. */
    record Timing(Duration heartbeat, Duration lease, Duration poll) {
        List<String> flags() {
            return List.of(
                    "--heartbeat",
                    heartbeat.toMillis() + "ms",
                    "--lease",
                    lease.toMillis() + "ms",
                    "--poll",
                    poll.toMillis() + "ms");
        }
    }

    /**
     * Watch links as the nodes are started: off ({@code --no-watch-links}), with a given watch lease, or (lease null)
     * the nodes' own default, which no flag is passed for.
     */
    record Watch(boolean links, Duration lease) {

        /** The nodes' default: on, with the watch lease they choose. */
        static final Watch DEFAULT = new Watch(true, null);

        List<String> flags() {
            if (!links) {
                return List.of("--no-watch-links");
            }
            return lease == null ? List.of() : List.of("--watch-lease", lease.toMillis() + "ms");
        }

        /**
         * The watch lease the nodes run with, by their own rule ({@link WatchLinks#defaultFor}: 1 s, or the heartbeat
         * if shorter; none below a 500 ms heartbeat unless one is given); null: no links.
         */
        Duration resolve(Timing timing) {
            if (!links) {
                return null;
            }
            if (lease != null) {
                return lease;
            }
            WatchLinks defaults =
                    WatchLinks.defaultFor(SlotTiming.of(timing.heartbeat(), timing.lease(), timing.poll()));
            return defaults == null ? null : defaults.lease();
        }
    }

    /** One node: its name stays, its process and port may change with restarts. */
    final class Node {
        final String name;
        final TcpProxy proxy;
        // Volatile: the soak's sampler reads them from its own thread while faults restart the node.
        volatile int port;
        volatile ChildJvm process;
        /** Under a SIGSTOP now: the sampler leaves it alone (it could not answer). */
        volatile boolean frozen;

        Node(String name) throws IOException {
            this.name = name;
            this.proxy = TcpProxy.to(database.uri());
            this.port = TestPorts.free(1).getFirst();
        }

        void start() {
            List<String> jvm = List.of(
                    "-Xmx256m",
                    "-Dstandby.chaos.record=" + dir.resolve("records"),
                    "-Dstandby.chaos.node=" + name,
                    "-Dstandby.chaos.mongo=" + proxy.uri());
            List<String> args = Children.nodeArgs(port, proxy.uri(), DB);
            args.addAll(timing.flags());
            if (!fastFailover) {
                // Only for the run that shows the verdict can fail: fast failover is the nodes' default.
                args.add("--no-fast-failover");
            }
            args.addAll(watch.flags());
            process = Children.standby(dir, name, jvm, args);
        }

        /** What other nodes call it now, and what a takeover from it names. */
        String identity() {
            return "127.0.0.1:" + port;
        }

        /**
         * Reads its {@code /metrics}, with watch links on (null otherwise, or if it does not answer), and keeps the
         * read as its process's last.
         */
        NodeScrape scrape() {
            if (watchLease == null || !running()) {
                return null;
            }
            NodeScrape scrape = NodeScrape.of(port);
            if (scrape != null) {
                scrapes.put(process.pid(), scrape);
            }
            return scrape;
        }

        /**
         * kill -9, its meters read first; notes when it was last known alive (read before the kill, which throws if it
         * had exited: then nothing is noted).
         */
        void kill9() {
            scrape();
            long before = System.currentTimeMillis();
            process.kill9();
            killedAt.put(process.pid(), before);
        }

        boolean running() {
            return process != null && process.isAlive();
        }

        /**
         * As a process supervisor would: a node that exited on its own (a restart that found the database down exits
         * after its first contact's 5 s) is started again. Returns what was done, for the fault's detail, or an empty
         * string if the node was running.
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

    Cluster(Path dir, int nodeCount, Timing timing, boolean fastFailover, Watch watch) {
        this.dir = dir;
        this.timing = timing;
        this.fastFailover = fastFailover;
        this.watch = watch;
        this.watchLease = watch.resolve(timing);
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

    /** The watch lease the nodes run with, or null: no watch links. */
    Duration watchLease() {
        return watchLease;
    }

    /** The last {@code /metrics} read of each node process, by pid. */
    Map<Long, NodeScrape> scrapes() {
        return Map.copyOf(scrapes);
    }

    /** For each node process killed with SIGKILL: when it was last known alive, just before the kill. */
    Map<Long, Long> killedAt() {
        return Map.copyOf(killedAt);
    }

    /**
     * A {@code standby} admin command, run in this process as the command line runs it (a JVM start per command would
     * leave few faults per minute); its output goes to cli.log. Returns its exit code.
     */
    int cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--mongo", database.uri(), "--db", DB));
        synchronized (Cluster.class) {
            PrintStream out = System.out;
            PrintStream err = System.err;
            try (PrintStream log =
                    new PrintStream(new FileOutputStream(dir.resolve("cli.log").toFile(), true), true)) {
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

    /** kill -9 every node (its meters read first): what they wrote stays as it is while it is read. */
    void stopNodes() {
        for (Node node : nodes) {
            if (node.running()) {
                try {
                    node.kill9();
                    continue;
                } catch (IllegalStateException exitedMeanwhile) {
                    // closed below
                }
            }
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
