package io.standby.samples.embedded;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.standby.node.StandbyNode;
import io.standby.robot.admin.RobotTable;
import io.standby.robot.model.RobotState;
import io.standby.robot.model.RobotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The embedding example against a real (embedded) wire-protocol server: the robot runs, counts, and stops cleanly. */
class EmbeddedNodeTest {

    private MongoServer server;
    private String uri;
    private StandbyDatabase admin;

    @BeforeEach
    void start() {
        server = new MongoServer(new MemoryBackend());
        server.bind("127.0.0.1", 0);
        uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
        admin = StandbyDatabase.connect(uri, StandbyDatabase.DEFAULT_NAME, Duration.ofSeconds(10), null);
    }

    @AfterEach
    void stop() {
        admin.close();
        server.shutdownNow();
    }

    private RobotView hello() {
        return new RobotTable(admin).get("hello").orElseThrow();
    }

    private long greeted() {
        return hello().context().get("greeted", Number.class) instanceof Number n ? n.longValue() : 0;
    }

    @Test
    void anApplicationRunsARobotInItsOwnProcessAndStopsItGracefully() throws Exception {
        EmbeddedNode.prepare(uri);
        int port = TestPorts.free();
        try (StandbyNode node = StandbyNode.builder()
                .mongo(uri)
                .node("127.0.0.1", port)
                .robots(new EmbeddedNode.Greeter.Factory())
                .start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> greeted() >= 3);
            assertEquals(RobotState.RUNNING, hello().state());
            assertEquals(List.of("hello"), node.running().get("slot-0"));
            String health = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertTrue(health.contains("hello"), health);
        }
        // Closed gracefully: the robot checkpointed, stands PENDING for the next node, and the slot is free.
        RobotView after = hello();
        assertEquals(RobotState.PENDING, after.state());
        assertNull(after.node());
        long last = greeted();
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(10)).until(() -> greeted() == last);
        assertTrue(
                new io.standby.slot.SlotTable(admin).get("slot-0").orElseThrow().released(), "the slot was released");
    }

    /**
     * What the example's Javadoc promises, from what it logged (its database goes with it): the node took the slot, the
     * robot greeted with a count that each checkpoint carries on, and the stop was graceful (the slot released after
     * the last greeting, then the node closed) before main returned.
     */
    @Test
    void theExampleMainRunsItsRobotThenStopsGracefullyAndReturns() throws Exception {
        List<String> logged = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                logged.add(event.getFormattedMessage());
            }
        };
        capture.start();
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(capture);
        int port = TestPorts.free();
        try {
            EmbeddedNode.main(new String[] {"3", Integer.toString(port)});
        } finally {
            root.detachAppender(capture);
        }

        List<String> lines = List.copyOf(logged);
        int acquired = indexOf(lines, "Acquired slot-0");
        List<String> greetings =
                lines.stream().filter(line -> line.startsWith("hello #")).toList();
        assertTrue(greetings.size() >= 2, "the robot greeted every 200 ms for seconds: " + greetings);
        for (int i = 0; i < greetings.size(); i++) {
            assertEquals("hello #" + (i + 1), greetings.get(i), "each greeting counts on from the last");
        }
        int lastGreeting = lines.lastIndexOf(greetings.getLast());
        int released = indexOf(lines, "Released slot-0");
        int closed = indexOf(lines, "Node 127.0.0.1:" + port + " closed");
        assertTrue(acquired < lines.indexOf(greetings.getFirst()), "the slot was taken before the robot ran: " + lines);
        assertTrue(
                lastGreeting < released && released < closed,
                "released after the last greeting, then closed: " + lines);
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("never logged: " + prefix + "... in " + lines);
    }
}
