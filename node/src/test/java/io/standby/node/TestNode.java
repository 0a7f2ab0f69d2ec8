package io.standby.node;

import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.Lease;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;

/**
 * A whole node in this JVM, a {@link StandbyNode} on two connections of the test's own, optionally behind a
 * {@link TcpProxy} so that a test can cut it off from the database. Counts the commands it sends.
 */
final class TestNode implements AutoCloseable {

    /** Short timings, so that takeovers take a couple of seconds. */
    static final SlotTiming TIMING =
            SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));

    final String name;
    final NodeId id;
    final StandbyNode standby;
    final TcpProxy proxy;
    /** Commands sent, with when (nanoTime); the protocol's and the runtime's. */
    final List<long[]> commands = new CopyOnWriteArrayList<>();
    /** Every command the runtime's client finished: when it was sent, its name, and the reply or the error. */
    final List<Finished> finished = new CopyOnWriteArrayList<>();

    private final java.util.Map<Integer, Long> sentAt = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Map<Integer, BsonDocument> sentCommand = new java.util.concurrent.ConcurrentHashMap<>();

    /** A command of the runtime's client: when the driver sent it, when the reply came, what it said. */
    record Finished(long sent, long done, String command, BsonDocument body, BsonDocument reply, String error) {}

    final AtomicLong acquiredAt = new AtomicLong();
    private final StandbyDatabase protocolDb;
    private final StandbyDatabase runtimeDb;

    /** Which of the node's connections go through its proxy. */
    enum Cut {
        NONE,
        ALL,
        ROBOTS_ONLY
    }

    private TestNode(
            int port,
            String uri,
            String db,
            int maxSlots,
            RuntimeConfig config,
            RobotTypes types,
            Cut cut,
            Duration robotTimeout)
            throws Exception {
        this.name = "127.0.0.1:" + port;
        this.id = new NodeId("127.0.0.1", port);
        this.proxy = cut == Cut.NONE ? null : TcpProxy.to(uri);
        String via = cut == Cut.ALL ? proxy.uri() : uri;
        String robotsVia = cut == Cut.NONE ? uri : proxy.uri();
        CommandListener counter = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commands.add(new long[] {System.nanoTime()});
            }
        };
        CommandListener outcomes = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                sentAt.put(event.getRequestId(), System.nanoTime());
                if (event.getCommandName().equals("update")) {
                    sentCommand.put(event.getRequestId(), event.getCommand().clone());
                }
            }

            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                finished.add(new Finished(
                        sentAt.getOrDefault(event.getRequestId(), 0L),
                        System.nanoTime(),
                        event.getCommandName(),
                        sentCommand.remove(event.getRequestId()),
                        event.getResponse(),
                        null));
            }

            @Override
            public void commandFailed(CommandFailedEvent event) {
                finished.add(new Finished(
                        sentAt.getOrDefault(event.getRequestId(), 0L),
                        System.nanoTime(),
                        event.getCommandName(),
                        sentCommand.remove(event.getRequestId()),
                        null,
                        event.getThrowable().toString()));
            }
        };
        this.protocolDb =
                StandbyDatabase.connect(via, db, TIMING.operationTimeout(), s -> s.addCommandListener(counter));
        this.runtimeDb = StandbyDatabase.connect(
                robotsVia, db, robotTimeout, s -> s.addCommandListener(counter).addCommandListener(outcomes));
        StandbyNodeBuilder builder = StandbyNode.builder()
                .databases(protocolDb, runtimeDb)
                .node(id.ip(), id.port())
                .maxSlots(maxSlots)
                .timing(TIMING)
                .stopTimeout(config.stopTimeout())
                .restarts(
                        config.restartBackoff(),
                        config.maxRestartBackoff(),
                        config.failureLimit(),
                        config.failureWindow())
                .robotTypes(types)
                // In-process nodes share 127.0.0.1 and need no HTTP: each test gives them distinct ports.
                .withoutEndpoint()
                // Without a listener no connect to them is ever accepted, so fast failover could never take
                // their slots early; off, they also keep running through slow renewals instead of pausing at
                // the late mark. The pause is tested with real processes (FastFailoverProcessTest).
                .withoutFastFailover()
                .listener(new SlotListener() {
                    @Override
                    public void acquired(Lease lease) {
                        acquiredAt.set(System.nanoTime());
                    }
                });
        try {
            this.standby = builder.start();
        } catch (RuntimeException e) {
            // A node refused at its start leaves no connections behind.
            protocolDb.close();
            runtimeDb.close();
            if (proxy != null) {
                proxy.close();
            }
            throw e;
        }
    }

    static TestNode start(
            int port, String uri, String db, int maxSlots, RuntimeConfig config, RobotTypes types, boolean proxied) {
        return start(port, uri, db, maxSlots, config, types, proxied ? Cut.ALL : Cut.NONE, Duration.ofSeconds(30));
    }

    static TestNode start(
            int port,
            String uri,
            String db,
            int maxSlots,
            RuntimeConfig config,
            RobotTypes types,
            Cut cut,
            Duration robotTimeout) {
        try {
            return new TestNode(port, uri, db, maxSlots, config, types, cut, robotTimeout);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static RuntimeConfig config() {
        return RuntimeConfig.defaults(TIMING.poll()).withStopTimeout(Duration.ofSeconds(5));
    }

    long commandsBetween(long fromNanos, long toNanos) {
        return commands.stream()
                .filter(c -> c[0] >= fromNanos && c[0] < toNanos)
                .count();
    }

    List<String> slotIds() {
        return standby.leases().stream().map(Lease::slotId).toList();
    }

    java.util.Map<String, List<String>> running() {
        return standby.running();
    }

    private volatile boolean closed;

    /** Graceful stop: robots checkpoint and return, slots are released. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (proxy != null) {
            // A node cut off by its proxy would otherwise wait out every timeout on its way down.
            proxy.close();
        }
        standby.close();
        protocolDb.close();
        runtimeDb.close();
    }
}
