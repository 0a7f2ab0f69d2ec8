package io.standby.bench;

import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Two {@code standby node} processes on one slot of a fresh database: one owns it, the other stands by. A stopped node
 * is started again on its port, so that each round has an owner and a standby.
 */
final class NodePair implements AutoCloseable {

    private final Path logs;
    private final Database database;
    private final String dbName;
    private final List<String> options;
    private final Map<Integer, ChildJvm> nodes = new LinkedHashMap<>();
    private final StandbyDatabase client;
    private final SlotWatch watch;
    private int starts;

    NodePair(Path logs, Database database, String dbName, Profile profile) {
        this(logs, database, dbName, profile.nodeArgs());
    }

    /** With exactly these options of {@code standby node} (none: its defaults). */
    NodePair(Path logs, Database database, String dbName, List<String> options) {
        this.logs = logs;
        this.database = database;
        this.dbName = dbName;
        this.options = List.copyOf(options);
        database.initSlots(dbName, 1);
        this.client = database.connect(dbName);
        this.watch = new SlotWatch(client, "slot-0");
        for (int port : TestPorts.free(2)) {
            nodes.put(port, null);
        }
    }

    StandbyDatabase client() {
        return client;
    }

    SlotWatch watch() {
        return watch;
    }

    /** Starts both nodes and waits until one owns the slot and the other reads it. */
    void start() {
        nodes.keySet().forEach(this::start);
        watch.awaitOwner(Duration.ofSeconds(60));
        awaitStandbyReady();
    }

    /** Starts the node of {@code port} (again). */
    void start(int port) {
        List<String> args = Children.nodeArgs(port, database.uri(), dbName);
        args.addAll(options);
        nodes.put(port, Children.standby(logs, dbName + "-node-" + port + "-" + (++starts), List.of("-Xmx256m"), args));
    }

    int ownerPort() {
        return watch.awaitOwner(Duration.ofSeconds(60)).port();
    }

    int standbyPort() {
        int owner = ownerPort();
        return nodes.keySet().stream().filter(p -> p != owner).findFirst().orElseThrow();
    }

    ChildJvm node(int port) {
        return nodes.get(port);
    }

    /** The standby is up and has read the slot: from now on it would see the owner go. */
    void awaitStandbyReady() {
        int standby = standbyPort();
        NodeHttp.awaitReady(nodes.get(standby), standby, Duration.ofSeconds(60));
    }

    /**
     * Waits until the owner counts a watch link from a standby ({@code standby_watch_links{side="owner"}} of its
     * /metrics at 1 or more); returns how long that took, 0 if it was up at the first look.
     */
    long awaitLinked(Duration atMost) {
        int owner = ownerPort();
        long start = System.nanoTime();
        boolean first = true;
        while (true) {
            Scrape scrape = Scrape.of(owner);
            if (scrape != null
                    && scrape.sum("standby_watch_links", "side", "owner").orElse(0) >= 1) {
                return first ? 0 : (System.nanoTime() - start) / 1_000_000;
            }
            first = false;
            if (System.nanoTime() - start > atMost.toNanos()) {
                throw new IllegalStateException(
                        "no watch link to the owner " + owner + " after " + atMost.toMillis() + " ms (logs: "
                                + nodes.values().stream()
                                        .filter(n -> n != null)
                                        .map(n -> n.log().toString())
                                        .toList() + ")");
            }
            Bench.sleep(Duration.ofMillis(50));
        }
    }

    @Override
    public void close() {
        watch.close();
        nodes.values().stream().filter(n -> n != null).forEach(ChildJvm::close);
        client.close();
    }
}
