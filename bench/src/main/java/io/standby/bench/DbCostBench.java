package io.standby.bench;

import io.standby.bench.peer.CommandCount;
import io.standby.robot.model.RobotCodec;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.ChildJvm;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import org.bson.Document;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench dbcost}: database commands per second of an owner node and a standby node at the default timing, for
 * each number of slots and robots asked for. Each node counts what its clients send (Micrometer's command listener,
 * read from its {@code /metrics} at the start and the end of the window); the standby reaches the database through a
 * {@link TcpProxy} that counts the bytes the server sends it. A third node owns every other slot, so the owner and the
 * standby are the nodes of one slot.
 */
@Command(
        name = "dbcost",
        mixinStandardHelpOptions = true,
        description = {
            "Database commands per second of an owner and a standby node (default timing), by slots and robots,",
            "and the bytes the standby reads from the server (through a counting proxy).",
            "The owner's robots are counter robots that never checkpoint in the window (intervalMs one day)."
        })
public final class DbCostBench implements Callable<Integer> {

    private static final long IDLE_INTERVAL_MS = Duration.ofDays(1).toMillis();
    /** Past the standby's join and both nodes' first registry writes. */
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /**
     * How often a wait looks again: every second, not faster, since a count scans every robot on the embedded server.
     */
    private static final Duration EVERY = Duration.ofSeconds(1);

    @Spec
    CommandSpec spec;

    @Mixin
    MongoOption mongo = new MongoOption();

    @Option(
            names = "--slots",
            paramLabel = "N",
            split = ",",
            defaultValue = "3,300",
            description = "Numbers of slots, one run each (default: ${DEFAULT-VALUE}).")
    List<Integer> slots;

    @Option(
            names = "--owned",
            paramLabel = "N",
            split = ",",
            defaultValue = "1",
            description =
                    "Numbers of slots the measured owner holds, one run each; the robots are on the first (default: "
                            + "${DEFAULT-VALUE}).")
    List<Integer> owned;

    @Option(
            names = "--robots",
            paramLabel = "N",
            split = ",",
            defaultValue = "1,1000,10000",
            description = "Numbers of robots on the owner's slot, one run each (default: ${DEFAULT-VALUE}).")
    List<Integer> robots;

    @Option(
            names = "--window",
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = DurationOption.class,
            description = "How long commands are counted in each run (default: ${DEFAULT-VALUE}).")
    Duration window;

    /** The proxies of the run under way. */
    private final List<TcpProxy> links = new ArrayList<>();

    /** One run's rates. */
    record Row(
            int slots,
            int owned,
            int robots,
            double owner,
            double standby,
            double standbyKbRead,
            String ownerKinds,
            String standbyKinds) {}

    @Override
    public Integer call() {
        for (int n : slots) {
            if (n < 1) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "invalid --slots " + n + ": must be at least 1");
            }
        }
        for (int n : owned) {
            if (n < 1 || n > slots.stream().mapToInt(Integer::intValue).min().orElseThrow()) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "invalid --owned " + n + ": must be at least 1 and at most the fewest --slots");
            }
        }
        for (int n : robots) {
            if (n < 0) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "invalid --robots " + n + ": must be 0 or more");
            }
        }
        if (window.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "invalid --window " + window.toMillis() + "ms: must be at least 1s");
        }
        Path dir = Bench.runDirectory("dbcost");
        System.out.println("dbcost: default timing (heartbeat 2s, lease 5s, poll 1s), commands over "
                + window.toSeconds() + " s per run; logs in " + dir);
        System.out.println("machine at start: " + Machine.describe());
        List<Row> rows = new ArrayList<>();
        List<ChildJvm> nodes = new ArrayList<>();
        Database database = mongo.open(dir);
        try {
            for (int s : slots) {
                for (int o : owned) {
                    for (int r : robots) {
                        rows.add(measure(dir, database, nodes, s, o, r));
                        nodes.forEach(ChildJvm::close);
                        nodes.clear();
                        links.forEach(TcpProxy::close);
                        links.clear();
                    }
                }
            }
            System.out.println("machine at end: " + Machine.describe());
            System.out.println();
            System.out.println(
                    "| slots | owned by the owner | robots | owner, commands/s | standby, commands/s | standby, "
                            + "KB/s read |");
            System.out.println("| --- | --- | --- | --- | --- | --- |");
            rows.forEach(row -> System.out.printf(
                    Locale.ROOT,
                    "| %,d | %,d | %,d | %.2f | %.2f | %.2f |%n",
                    row.slots(),
                    row.owned(),
                    row.robots(),
                    row.owner(),
                    row.standby(),
                    row.standbyKbRead()));
            System.out.println();
            rows.forEach(row -> System.out.printf(
                    Locale.ROOT,
                    "%d slots, %d owned, %d robots: owner sent %s; standby sent %s%n",
                    row.slots(),
                    row.owned(),
                    row.robots(),
                    row.ownerKinds(),
                    row.standbyKinds()));
            return 0;
        } finally {
            nodes.forEach(ChildJvm::close);
            links.forEach(TcpProxy::close);
            database.close();
        }
    }

    private Row measure(
            Path dir, Database database, List<ChildJvm> nodes, int slotCount, int ownedCount, int robotCount) {
        String dbName = "dbcost_" + slotCount + "_" + ownedCount + "_" + robotCount;
        database.initSlots(dbName, slotCount);
        List<Integer> ports = TestPorts.free(3);
        try (StandbyDatabase admin = StandbyDatabase.connect(database.uri(), dbName, Duration.ofSeconds(60), null)) {
            SlotTable table = new SlotTable(admin);
            int filled = slotCount - ownedCount;
            if (filled > 0) {
                nodes.add(node(dir, database.uri(), dbName, ports.get(0), filled));
                Waits.until(
                        "the filler node owns " + filled + " slots",
                        Duration.ofMinutes(2),
                        EVERY,
                        () -> table.list().stream()
                                        .filter(v -> v.owner() != null)
                                        .count()
                                == filled);
            }
            List<String> free = table.list().stream()
                    .filter(v -> v.owner() == null)
                    .map(SlotView::id)
                    .toList();
            addIdleRobots(admin, free.getFirst(), robotCount);
            ChildJvm owner = node(dir, database.uri(), dbName, ports.get(1), ownedCount);
            nodes.add(owner);
            Waits.until(
                    "the owner holds " + ownedCount + " slots and runs " + robotCount + " robots on " + free.getFirst(),
                    Duration.ofMinutes(5),
                    EVERY,
                    () -> free.stream().allMatch(slot -> owns(table, slot, ports.get(1)))
                            && admin.database()
                                            .getCollection("robots")
                                            .countDocuments(
                                                    new Document("slotId", free.getFirst()).append("state", "RUNNING"))
                                    == robotCount);
            // The standby reaches the database through a proxy that counts the bytes the server sends it. It
            // starts while the owner settles: every slot is owned by then, and a standby writes no robot.
            TcpProxy standbyLink = TcpProxy.to(database.uri());
            links.add(standbyLink);
            ChildJvm standby = node(dir, standbyLink.uri(), dbName, ports.get(2), 1);
            nodes.add(standby);
            // Robots are marked running in bulks, and fenced in more; a loaded machine can still be at it.
            awaitNoRobotWrites(ports.get(1));
            Waits.until("the standby answers /metrics", Duration.ofMinutes(1), EVERY, () -> {
                try {
                    CommandCount.scrape(ports.get(2));
                    return true;
                } catch (IllegalStateException e) {
                    return false;
                }
            });
            Bench.sleep(SETTLE);
            CommandCount ownerFrom = CommandCount.scrape(ports.get(1));
            CommandCount standbyFrom = CommandCount.scrape(ports.get(2));
            long readFrom = standbyLink.bytesFromServer();
            Bench.sleep(window);
            CommandCount ownerTo = CommandCount.scrape(ports.get(1));
            CommandCount standbyTo = CommandCount.scrape(ports.get(2));
            double kbRead = (standbyLink.bytesFromServer() - readFrom) / 1024.0 / window.toMillis() * 1000;
            if (!free.stream().allMatch(slot -> owns(table, slot, ports.get(1)))
                    || table.list().stream().anyMatch(v -> ports.get(2).equals(portOf(v)))) {
                throw new IllegalStateException(
                        "the owner lost one of " + free + " or the standby took a slot while commands were counted");
            }
            admin.database().drop();
            System.out.printf(
                    Locale.ROOT,
                    "%d slots, %d owned, %d robots: owner %.2f/s, standby %.2f/s and %.2f KB/s read%n",
                    slotCount,
                    ownedCount,
                    robotCount,
                    ownerTo.ratePerSecond(ownerFrom),
                    standbyTo.ratePerSecond(standbyFrom),
                    kbRead);
            return new Row(
                    slotCount,
                    ownedCount,
                    robotCount,
                    ownerTo.ratePerSecond(ownerFrom),
                    standbyTo.ratePerSecond(standbyFrom),
                    kbRead,
                    ownerTo.breakdown(ownerFrom),
                    standbyTo.breakdown(standbyFrom));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Until the owner has sent no write to the robots for three seconds. */
    private static void awaitNoRobotWrites(int port) {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        long before = robotWrites(CommandCount.scrape(port));
        while (true) {
            Bench.sleep(Duration.ofSeconds(3));
            long now = robotWrites(CommandCount.scrape(port));
            if (now == before) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the owner still writes to its robots after 5 min");
            }
            before = now;
        }
    }

    private static long robotWrites(CommandCount count) {
        return count.byKind().getOrDefault("update robots", 0L);
    }

    private static boolean owns(SlotTable table, String slot, int port) {
        return table.get(slot).map(v -> Integer.valueOf(port).equals(portOf(v))).orElse(false);
    }

    private static Integer portOf(SlotView slot) {
        return slot.owner() == null ? null : slot.owner().port();
    }

    private static ChildJvm node(Path dir, String mongoUri, String dbName, int port, int maxSlots) {
        return Children.standby(
                dir,
                dbName + "-" + port,
                List.of("-Xmx512m"),
                List.of(
                        "node",
                        "--ip",
                        "127.0.0.1",
                        "--port",
                        Integer.toString(port),
                        "--max-slots",
                        Integer.toString(maxSlots),
                        "--mongo",
                        mongoUri,
                        "--db",
                        dbName));
    }

    /** Counter robots that sleep a day between counts: running, never checkpointing while measured. */
    private static void addIdleRobots(StandbyDatabase admin, String slot, int count) {
        if (count == 0) {
            return;
        }
        List<Document> docs = IntStream.range(0, count)
                .mapToObj(i -> RobotCodec.newRobot(
                        String.format("idle-%05d", i),
                        "counter",
                        slot,
                        0,
                        1.0,
                        new Document("intervalMs", IDLE_INTERVAL_MS)))
                .toList();
        admin.database().getCollection("robots").insertMany(docs);
    }
}
