package io.standby.morphia;

import io.standby.node.StandbyNode;
import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import io.standby.slot.SlotTiming;
import java.time.Duration;
import org.bson.Document;

/** A real node on the test's database, with one robot type that runs and checkpoints and one that always throws. */
final class NodeWrites {

    static final String STEADY = "steady";
    static final String BROKEN = "broken";

    private NodeWrites() {}

    /**
     * Starts a node at 127.0.0.1:{@code port} with short timings (a heartbeat of 500 ms, the shortest with watch links
     * by default, so that its owner document carries them) and room for 8 slots; a robot that throws twice in a minute
     * is FAILED.
     */
    static StandbyNode start(String uri, String database, int port) {
        return StandbyNode.builder()
                .mongo(uri)
                .database(database)
                .node("127.0.0.1", port)
                .maxSlots(8)
                .timing(SlotTiming.of(Duration.ofMillis(500), Duration.ofSeconds(3), Duration.ofMillis(200)))
                .restarts(Duration.ofMillis(10), Duration.ofMillis(10), 2, Duration.ofMinutes(1))
                .robots(factory(STEADY, ctx -> {
                    long count = ctx.state().get("count", 0L);
                    while (ctx.sleep(Duration.ofMillis(300))) {
                        ctx.checkpoint(new Document("count", ++count));
                    }
                }))
                .robots(factory(BROKEN, ctx -> {
                    throw new IllegalStateException("broken on purpose");
                }))
                .start();
    }

    private static RobotFactory factory(String type, Robot robot) {
        return new RobotFactory() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public Robot create(Document config) {
                return robot;
            }
        };
    }
}
