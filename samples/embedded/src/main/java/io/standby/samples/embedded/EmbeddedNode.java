package io.standby.samples.embedded;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.node.StandbyNode;
import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import io.standby.slot.StandbyDatabase;
import java.time.Duration;
import java.util.OptionalDouble;
import org.bson.Document;

/**
 * A Standby node inside an application's own {@code main}. Run it from an IDE, or as its test does: it starts an
 * in-memory MongoDB-compatible server, creates one slot and one robot, runs a node for a while and stops it gracefully.
 * In a real application only the three lines marked below remain: the database, slots and robots already exist, and
 * operators manage them with the {@code standby} command.
 */
public final class EmbeddedNode {

    /** A robot of the application's own: greets every second, and remembers how often across takeovers. */
    public static final class Greeter implements Robot {
        @Override
        public void run(RobotContext ctx) {
            long greeted = ctx.state().get("greeted", 0L);
            while (ctx.sleep(Duration.ofMillis(ctx.config().get("intervalMs", 1000)))) {
                ctx.log().info("hello #{}", ++greeted);
                ctx.checkpoint(new Document("greeted", greeted));
            }
        }

        public static final class Factory implements RobotFactory {
            @Override
            public String type() {
                return "greeter";
            }

            @Override
            public Robot create(Document config) {
                return new Greeter();
            }
        }
    }

    private EmbeddedNode() {}

    /** Arguments: how many seconds to run (default 10), and the node's port (default 7790). */
    public static void main(String[] args) throws Exception {
        Duration runFor = Duration.ofSeconds(args.length > 0 ? Long.parseLong(args[0]) : 10);
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 7790;
        MongoServer server = new MongoServer(new MemoryBackend());
        server.bind("127.0.0.1", 0);
        String uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
        try {
            prepare(uri);
            run(uri, port, runFor);
        } finally {
            server.shutdown();
        }
    }

    /** What operators do once, with {@code standby slots init} and {@code standby robot add}. */
    static void prepare(String uri) {
        try (StandbyDatabase db =
                StandbyDatabase.connect(uri, StandbyDatabase.DEFAULT_NAME, Duration.ofSeconds(10), null)) {
            new SlotTable(db).init(1);
            new RobotTable(db)
                    .add(
                            new RobotTable.NewRobot("hello", "greeter", null, 0, 1, new Document("intervalMs", 200)),
                            OptionalDouble.empty());
        }
    }

    /** The application's part: a node with its robot types, for as long as the application runs. */
    static void run(String uri, int port, Duration runFor) throws InterruptedException {
        try (StandbyNode node = StandbyNode.builder()
                .mongo(uri)
                .node("127.0.0.1", port) // 1
                .robots(new Greeter.Factory())
                .start()) { // 2
            Thread.sleep(runFor); // 3: the application's own work
        }
    }
}
