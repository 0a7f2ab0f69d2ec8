package io.standby.bench.peer;

import io.standby.bench.Children;
import io.standby.bench.Database;
import io.standby.bench.Waits;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TestPorts;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Two {@code standby node} processes (max one slot each, no robots) on a database with one slot. */
final class StandbyContest implements Contest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path dir;
    private final Database database;
    private final String dbName;
    private final Duration heartbeat;
    private final Duration lease;
    private final Duration poll;
    private final boolean fastFailover;
    private final Map<Integer, ChildJvm> nodes = new LinkedHashMap<>();
    private StandbyDatabase admin;
    private int started;

    StandbyContest(Path dir, Database database, String dbName, Duration heartbeat, Duration lease, Duration poll, boolean fastFailover) {
        this.dir = dir;
        this.database = database;
        this.dbName = dbName;
        this.heartbeat = heartbeat;
        this.lease = lease;
        this.poll = poll;
        this.fastFailover = fastFailover;
    }

    @Override
    public String name() {
        return "standby " + seconds(heartbeat) + "/" + seconds(lease) + (fastFailover ? "" : " no-ff");
    }

    @Override
    public String settings() {
        return "--heartbeat " + seconds(heartbeat) + " --lease " + seconds(lease) + " --poll " + seconds(poll)
                + (fastFailover ? "" : " --no-fast-failover");
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
        List<String> args = new ArrayList<>(List.of("node", "--ip", "127.0.0.1", "--port", Integer.toString(port),
                "--heartbeat", seconds(heartbeat), "--lease", seconds(lease), "--poll", seconds(poll),
                "--mongo", database.uri(), "--db", dbName));
        if (!fastFailover) {
            args.add("--no-fast-failover");
        }
        nodes.put(port, Children.standby(dir, dbName + "-" + port + "-" + started++, List.of("-Xmx256m"), args));
    }

    @Override
    public ChildJvm holder(Duration atMost) {
        ChildJvm[] holder = new ChildJvm[1];
        Waits.until(name() + ": an owner and a standby that answers /health", atMost, Duration.ofMillis(50), () -> {
            SlotView slot = slot();
            if (slot.owner() == null || !nodes.containsKey(slot.owner().port())) {
                return false;
            }
            holder[0] = nodes.get(slot.owner().port());
            return holder[0].isAlive() && nodes.keySet().stream().allMatch(StandbyContest::answers);
        });
        return holder[0];
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
        return nodes.entrySet().stream().filter(e -> e.getValue() == node).findFirst().orElseThrow().getKey();
    }

    private static boolean answers(int port) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                    .timeout(Duration.ofSeconds(2)).build();
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
