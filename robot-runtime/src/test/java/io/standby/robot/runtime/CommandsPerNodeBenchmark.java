package io.standby.robot.runtime;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.standby.node.StandbyNode;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotNode;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Database commands per node at the default timing, counted by each node's driver ({@link CommandListener}):
 * an owner of one slot running idle robots, and a standby, while a third node (a bare slot node) owns every
 * other slot. Prints {@code BENCHMARK} lines with the rate of each and what its commands were. Run with
 * {@code -Dstandby.bench=true} (see docs/BENCHMARKS.md); {@code -Dstandby.bench.window=60} sets the
 * measured seconds.
 */
@EnabledIfSystemProperty(named = "standby.bench", matches = "true")
class CommandsPerNodeBenchmark {

    private static final Duration WINDOW = Duration.ofSeconds(Long.getLong("standby.bench.window", 60));

    /** One node's commands: when each started, and its name and collection. */
    private static final class Counted implements CommandListener {
        final List<Map.Entry<Long, String>> commands = new CopyOnWriteArrayList<>();

        @Override
        public void commandStarted(CommandStartedEvent event) {
            String name = event.getCommandName();
            var target = event.getCommand().get(name);
            String what = target != null && target.isString() ? name + " " + target.asString().getValue() : name;
            commands.add(Map.entry(System.nanoTime(), what));
        }

        /** Commands per second within [from, to), and how many of each kind. */
        String rate(long from, long to) {
            Map<String, Integer> kinds = new TreeMap<>();
            commands.stream().filter(c -> c.getKey() >= from && c.getKey() < to).forEach(c -> kinds.merge(c.getValue(), 1, Integer::sum));
            double seconds = (to - from) / 1e9;
            int total = kinds.values().stream().mapToInt(Integer::intValue).sum();
            return String.format("%.2f/s %s", total / seconds, kinds);
        }
    }

    @ParameterizedTest(name = "{0} slots, {1} robots")
    @CsvSource({"3, 1", "3, 1000", "3, 10000", "300, 1000"})
    void commandsPerSecond(int slots, int robots) throws Exception {
        String name = TestMongo.freshDatabase("commands_" + slots + "_" + robots);
        try (StandbyDatabase admin = StandbyDatabase.connect(TestMongo.uri(), name, Duration.ofSeconds(30), null);
             StandbyDatabase fillerDb = StandbyDatabase.connect(TestMongo.uri(), name, SlotTiming.defaults().operationTimeout(), null)) {
            new SlotTable(admin).init(slots);
            SlotNode filler = SlotNode.create(fillerDb, NodeConfig.of(new NodeId("127.0.0.1", 7990), slots - 1, SlotTiming.defaults()),
                    new SlotListener() { }).start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> filler.leases().size() == slots - 1);
                String free = new SlotTable(admin).list().stream().filter(s -> s.owner() == null).findFirst().orElseThrow().id();
                addIdleRobots(admin, free, robots);

                Counted ownerCommands = new Counted();
                Counted standbyCommands = new Counted();
                Tracker tracker = new Tracker();
                try (StandbyNode owner = node(name, 7991, ownerCommands, tracker)) {
                    // Counted every few seconds: a count scans every robot on the embedded server.
                    await().atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofSeconds(3)).until(() -> admin.database().getCollection("robots")
                            .countDocuments(new Document("state", "RUNNING")) == robots);
                    try (StandbyNode standby = node(name, 7992, standbyCommands, tracker)) {
                        // Past the standby's join and both nodes' first registry writes.
                        Thread.sleep(5_000);
                        long from = System.nanoTime();
                        Thread.sleep(WINDOW.toMillis());
                        long to = System.nanoTime();
                        assertEquals(List.of(free), owner.leases().stream().map(l -> l.slotId()).toList(), "the owner kept its slot");
                        assertEquals(List.of(), standby.leases(), "the standby stood by");
                        System.out.printf("BENCHMARK commands slots=%d robots=%d window=%ds owner=%s standby=%s%n",
                                slots, robots, WINDOW.toSeconds(), ownerCommands.rate(from, to), standbyCommands.rate(from, to));
                    }
                }
            } finally {
                filler.close();
                admin.database().drop();
            }
        }
    }

    private static StandbyNode node(String database, int port, Counted commands, Tracker tracker) {
        return StandbyNode.builder()
                .mongo(TestMongo.uri()).database(database)
                .clientSettings(settings -> settings.addCommandListener(commands))
                .node("127.0.0.1", port).maxSlots(1)
                .robotTypes(RobotTypes.of(TrackedRobot.factory(tracker, "127.0.0.1:" + port)))
                .endpoint(false)
                .start();
    }

    private static void addIdleRobots(StandbyDatabase admin, String slot, int count) {
        List<Document> docs = IntStream.range(0, count).mapToObj(i -> new Document("_id", String.format("idle-%05d", i))
                .append("type", TrackedRobot.TYPE).append("slotId", slot).append("priority", 0).append("weight", 1.0)
                .append("config", new Document("checkpoint", false).append("intervalMs", 1000))
                .append("desired", "running").append("state", "PENDING").append("node", null)
                .append("context", new Document()).append("epoch", 0L).append("restarts", 0)).toList();
        admin.database().getCollection("robots").insertMany(docs);
    }
}
