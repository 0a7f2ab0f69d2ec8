package io.standby.bench.peer;

import io.standby.bench.Bench;
import io.standby.bench.Children;
import io.standby.bench.Database;
import io.standby.bench.Scrape;
import io.standby.bench.Waits;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.WatchLinks;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;

/**
 * Two {@code standby node} processes (max one slot each, no robots) on a database with one slot, started with exactly
 * {@code options} (none: the node's defaults); {@code timing}'s heartbeat, lease and poll are what those options amount
 * to, for the kill's timing and the bounds.
 */
final class StandbyContest implements Contest {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path dir;
    private final Database database;
    private final String dbName;
    private final String name;
    private final List<String> options;
    private final Duration heartbeat;
    private final Duration lease;
    private final Duration poll;
    private final Map<Integer, ChildJvm> nodes = new LinkedHashMap<>();
    private StandbyDatabase admin;
    private int started;

    StandbyContest(Path dir, Database database, String dbName, String name, List<String> options, SlotTiming timing) {
        this.dir = dir;
        this.database = database;
        this.dbName = dbName;
        this.name = name;
        this.options = List.copyOf(options);
        this.heartbeat = timing.heartbeat();
        this.lease = timing.lease();
        this.poll = timing.poll();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String settings() {
        String timing = "heartbeat " + seconds(heartbeat) + ", lease " + seconds(lease) + ", poll " + seconds(poll);
        return options.isEmpty()
                ? "standby node with no option: its defaults (" + timing
                        + ", fast failover on, watch links on at a 1s watch lease)"
                : "standby node " + String.join(" ", options) + " (" + timing + ")";
    }

    @Override
    public String takenBy(long holding) {
        Document filter =
                new Document("type", "took-over").append("slot", "slot-0").append("epoch", holding);
        // Written by the new owner's event queue shortly after the claim; seconds later on a loaded machine.
        for (int i = 0; i < 500; i++) {
            Document event =
                    admin.database().getCollection("events").find(filter).first();
            if (event != null) {
                return event.getString("how");
            }
            Bench.sleep(Duration.ofMillis(20));
        }
        return "no event";
    }

    @Override
    public Duration renewal() {
        return heartbeat;
    }

    @Override
    public Duration bound() {
        return lease.plus(poll).plus(heartbeat).plusSeconds(30);
    }

    @Override
    public void start() {
        database.initSlots(dbName, 1);
        admin = database.connect(dbName);
        for (int port : TestPorts.free(2)) {
            launch(port);
        }
    }

    private void launch(int port) {
        List<String> args = Children.nodeArgs(port, database.uri(), dbName);
        args.addAll(options);
        nodes.put(port, Children.standby(dir, dbName + "-" + port + "-" + started++, List.of("-Xmx256m"), args));
    }

    @Override
    public ChildJvm holder(Duration atMost) {
        ChildJvm[] holder = new ChildJvm[1];
        Waits.until(
                name() + ": an owner and a standby that answers /health" + (linked() ? ", linked to the owner" : ""),
                atMost,
                Duration.ofMillis(50),
                () -> {
                    SlotView slot = slot();
                    if (slot.owner() == null || !nodes.containsKey(slot.owner().port())) {
                        return false;
                    }
                    holder[0] = nodes.get(slot.owner().port());
                    return holder[0].isAlive()
                            && nodes.keySet().stream().allMatch(StandbyContest::answers)
                            && (!linked() || watchedBy(slot.owner().port()) >= 1);
                });
        return holder[0];
    }

    /**
     * Whether the nodes keep watch links: as {@code standby node} does unless told, at a heartbeat of 500 ms or more.
     */
    boolean linked() {
        return !options.contains("--no-watch-links")
                && WatchLinks.defaultFor(SlotTiming.of(heartbeat, lease, poll)) != null;
    }

    /** The watch links from standbys the node of {@code port} counts, or 0 when its /metrics does not answer. */
    private static double watchedBy(int port) {
        Scrape scrape = Scrape.of(port);
        return scrape == null
                ? 0
                : scrape.sum("standby_watch_links", "side", "owner").orElse(0);
    }

    @Override
    public ChildJvm other(ChildJvm holder) {
        return nodes.values().stream().filter(c -> c != holder).findFirst().orElseThrow();
    }

    @Override
    public long holding() {
        SlotView slot = slot();
        return slot.owner() == null ? -1 : slot.epoch();
    }

    private SlotView slot() {
        return new SlotTable(admin).get("slot-0").orElseThrow();
    }

    @Override
    public void replace(ChildJvm dead) {
        int port = port(dead);
        dead.close();
        launch(port);
    }

    @Override
    public CommandCount commands(ChildJvm contender) {
        return CommandCount.scrape(port(contender));
    }

    private int port(ChildJvm node) {
        return nodes.entrySet().stream()
                .filter(e -> e.getValue() == node)
                .findFirst()
                .orElseThrow()
                .getKey();
    }

    private static boolean answers(int port) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    @Override
    public void close() {
        nodes.values().forEach(ChildJvm::close);
        if (admin != null) {
            admin.close();
        }
    }
}
