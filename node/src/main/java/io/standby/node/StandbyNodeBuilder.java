package io.standby.node;

import com.mongodb.MongoClientSettings;
import io.standby.robot.RobotFactory;
import io.standby.robot.runtime.RobotTypes;
import io.standby.robot.runtime.RuntimeConfig;
import io.standby.slot.Durations;
import io.standby.slot.FenceCheck;
import io.standby.slot.MonotonicClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTiming;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.WatchLinks;
import io.standby.slot.internal.SuspendAwareClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How to start a node ({@link StandbyNode#builder()}). Every setting has a default except the identity ({@link #node});
 * everything is checked in {@link #build()} before anything is bound or connected.
 */
public final class StandbyNodeBuilder {

    /**
     * The robots' operations get seconds: loading a slot's robots and sending checkpoints may take longer than a
     * renewal, which keeps the protocol's short timeout.
     */
    public static final Duration ROBOT_OPERATION_TIMEOUT = Duration.ofSeconds(10);

    private String uri = StandbyDatabase.DEFAULT_URI;
    private String database = StandbyDatabase.DEFAULT_NAME;
    private Consumer<MongoClientSettings.Builder> clientSettings;
    private StandbyDatabase slotDatabase;
    private StandbyDatabase robotDatabase;
    private String ip;
    private int port;
    private int maxSlots = NodeConfig.DEFAULT_MAX_SLOTS;
    private SlotTiming timing = SlotTiming.defaults();
    private Duration stopTimeout = RuntimeConfig.DEFAULT_STOP_TIMEOUT;
    private Duration restartBackoff = RuntimeConfig.DEFAULT_RESTART_BACKOFF;
    private Duration maxRestartBackoff = RuntimeConfig.DEFAULT_MAX_RESTART_BACKOFF;
    private int failureLimit = RuntimeConfig.DEFAULT_FAILURE_LIMIT;
    private Duration failureWindow = RuntimeConfig.DEFAULT_FAILURE_WINDOW;
    private RobotTypes types;
    private final List<RobotFactory> factories = new ArrayList<>();
    private SlotListener listener = SlotListener.NONE;
    private boolean endpoint = true;
    private boolean addressBound;
    private boolean fastFailover = true;
    private boolean watchLinks = true;
    private Duration watchLease;
    private int watchPort;
    private MonotonicClock clock = SuspendAwareClock.ofSystem();
    private final List<NodeExtension> extensions = new ArrayList<>();

    StandbyNodeBuilder() {}

    /** The MongoDB URI (default {@value StandbyDatabase#DEFAULT_URI}). */
    public StandbyNodeBuilder mongo(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
        return this;
    }

    /** The database that holds the slots and robots (default {@value StandbyDatabase#DEFAULT_NAME}). */
    public StandbyNodeBuilder database(String name) {
        this.database = Objects.requireNonNull(name, "name");
        return this;
    }

    /** More settings for the node's MongoDB clients, for example a command listener. */
    public StandbyNodeBuilder clientSettings(Consumer<MongoClientSettings.Builder> settings) {
        this.clientSettings = settings;
        return this;
    }

    /**
     * Connections the caller opened and closes, instead of {@link #mongo}: one for the slot protocol, whose operation
     * timeout must be {@link SlotTiming#operationTimeout()}, one for the robots (seconds, see
     * {@link #ROBOT_OPERATION_TIMEOUT}).
     */
    public StandbyNodeBuilder databases(StandbyDatabase slots, StandbyDatabase robots) {
        this.slotDatabase = Objects.requireNonNull(slots, "slots");
        this.robotDatabase = Objects.requireNonNull(robots, "robots");
        return this;
    }

    /** The node's identity: a literal IP address of this machine and a port, 1-65535. Required. */
    public StandbyNodeBuilder node(String ip, int port) {
        this.ip = ip;
        this.port = port;
        return this;
    }

    /** The most slots this node owns at once (default {@value NodeConfig#DEFAULT_MAX_SLOTS}). */
    public StandbyNodeBuilder maxSlots(int maxSlots) {
        this.maxSlots = maxSlots;
        return this;
    }

    /** Heartbeat, lease and poll (default 2 s, 20 s, 1 s; see {@link SlotTiming} for the rules). */
    public StandbyNodeBuilder timing(SlotTiming timing) {
        this.timing = Objects.requireNonNull(timing, "timing");
        return this;
    }

    /** How long robots get for a final checkpoint on close before they are interrupted (default 10 s). */
    public StandbyNodeBuilder stopTimeout(Duration stopTimeout) {
        this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
        return this;
    }

    /**
     * How a robot that throws is restarted: after {@code backoff}, doubling up to {@code maxBackoff}; the
     * {@code failureLimit}-th failure within {@code failureWindow} marks it FAILED (default 1 s, 1 min, 5, 5 min).
     */
    public StandbyNodeBuilder restarts(
            Duration backoff, Duration maxBackoff, int failureLimit, Duration failureWindow) {
        this.restartBackoff = Objects.requireNonNull(backoff, "backoff");
        this.maxRestartBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
        this.failureLimit = failureLimit;
        this.failureWindow = Objects.requireNonNull(failureWindow, "failureWindow");
        return this;
    }

    /**
     * The robot types this node runs. Default: the factories on the class path ({@link RobotTypes#builtIn()}), plus any
     * added with {@link #robots}.
     */
    public StandbyNodeBuilder robotTypes(RobotTypes types) {
        this.types = Objects.requireNonNull(types, "types");
        return this;
    }

    /** Robot types added to the others, e.g. {@code robots(new Greeter.Factory())}. */
    public StandbyNodeBuilder robots(RobotFactory... factories) {
        this.factories.addAll(List.of(factories));
        return this;
    }

    /**
     * Told of every acquired, releasing and lost slot, before the robots are: for logs or metrics. It must return
     * quickly, and cannot keep the robots from hearing of a loss.
     */
    public StandbyNodeBuilder listener(SlotListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Adds an extension, told of this node's slots and robots and given its HTTP listener once it runs: the
     * {@code standby-node-web} module's dashboard ({@code NodeWeb.pages()}) and meters
     * ({@code StandbyMetrics.of(registry)}), for example. Extensions hear every event before the {@link #listener}
     * does, in the order they were added. Default none: the node then serves {@code /health} alone and needs neither
     * Micrometer nor the dashboard on its class path.
     */
    public StandbyNodeBuilder extension(NodeExtension extension) {
        this.extensions.add(Objects.requireNonNull(extension, "extension"));
        return this;
    }

    /**
     * Whether to take a slot over before its lease runs out when its owner's process is found gone (default true): the
     * owner's heartbeat is older than the late mark it wrote (two heartbeats) by the database's clock and by this
     * node's, and its address, which accepted this node's connects before, refuses two connects in a row. A crash then
     * costs about two heartbeats and two polls instead of the whole lease. The price is paid in database elections: an
     * owner pauses its robots once no renewal has been acknowledged for 1.8 heartbeats, and runs them again, same slot
     * and epoch, at the next acknowledged one; turned off, robots run on until {@code lease - lease/10}. The node also
     * checks its own address every half heartbeat and fences every lease at once if it refuses (see
     * {@link StandbyNode#identityLost()}).
     *
     * <p>It relies on the node's ip:port being the address other nodes reach it at, held by a listener for the node's
     * whole life. A refusal can be wrong (a firewall REJECT rule, a moved ip, a closed listener): the owner therefore
     * writes its late mark into its slots and pauses its robots before it is that late, so a wrong refusal costs it its
     * slots, never a second runner. Turned off here, the node always waits out the lease: it writes no late mark, never
     * pauses at one, and is never taken over early.
     */
    public StandbyNodeBuilder withoutFastFailover() {
        this.fastFailover = false;
        return this;
    }

    /**
     * Watch links, on by default ({@link WatchLinks}): standbys keep a TCP connection to this node (on a port of its
     * ip, {@link #watchPort}, which other nodes must reach) and take its slots about {@code 1.1 × watch lease} after
     * the connection died, instead of at the late mark or the lease. In return this node pauses a slot's robots when a
     * link's deadline passes and a renewal has not outrun it: when a standby dies or its link breaks, one renewal is
     * sent at once, and only if the database does not answer it within about 0.4 watch leases do the robots pause, to
     * resume at the next renewal. Links are authenticated with the cluster's key in the database ({@code secrets}); a
     * peer that can reach the port but not the database is refused. Turned off here, slots are taken over at the late
     * mark (fast failover) or the lease.
     */
    public StandbyNodeBuilder withoutWatchLinks() {
        this.watchLinks = false;
        return this;
    }

    /**
     * The watch lease (see {@link #withoutWatchLinks}). Default {@link WatchLinks#DEFAULT_LEASE}, or the heartbeat if
     * that is shorter; below a heartbeat of {@link WatchLinks#MIN_DEFAULT_HEARTBEAT} links are off unless a watch lease
     * is given here, since the late mark then takes over about as fast. Choose it well above the network's round trip
     * (a standby whose handshake takes more than half of it is refused) and the database's usual latency. Null: the
     * default.
     *
     * @throws IllegalArgumentException if it is under {@link WatchLinks#MIN_LEASE}; {@link #build()} also refuses one
     *     not shorter than the late mark (two heartbeats), which would take over no sooner, or one whose margin is
     *     shorter than the fence check's period
     */
    public StandbyNodeBuilder watchLease(Duration watchLease) {
        if (watchLease != null) {
            WatchLinks.of(watchLease);
        }
        this.watchLease = watchLease;
        return this;
    }

    /**
     * The TCP port this node takes watch links on, on its ip (default 0: an ephemeral port, written into its owner
     * document where standbys find it). Set one where a firewall or a NetworkPolicy must allow it.
     *
     * @throws IllegalArgumentException if it is not 0 to 65535
     */
    public StandbyNodeBuilder watchPort(int watchPort) {
        new WatchLinks(WatchLinks.MIN_LEASE, watchPort);
        this.watchPort = watchPort;
        return this;
    }

    /**
     * The node's one monotonic clock, on which the slot protocol, the robots' runs, their supervisor and the change
     * watcher read every local deadline (the database's clock still judges lease expiry). Default:
     * {@link SuspendAwareClock#ofSystem()}, the JVM's monotonic clock moved forward by any time the machine was
     * suspended. Tests pass one they can tick.
     */
    public StandbyNodeBuilder clock(MonotonicClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * Without the node's own HTTP endpoint. By default the node binds its ip:port for it: {@code /health}, and whatever
     * its extensions serve. It binds it before it connects or joins and holds it until closed, which proves its
     * identity. Call this when the application listens on that address itself. Then nothing proves that an earlier
     * process with this ip:port on this host is gone, unless the application bound it before {@link #start()} (see
     * {@link #addressBound}): the node waits out the leases such a process left, and refuses to start while one of them
     * is live, since the process may still run their robots.
     */
    public StandbyNodeBuilder withoutEndpoint() {
        this.endpoint = false;
        return this;
    }

    /**
     * With {@link #withoutEndpoint()}: the application has bound the node's ip:port itself before {@link #start()}, and
     * holds it until the node is closed (by default nothing is assumed). That proves the earlier processes with this
     * identity on this host gone, so the node takes their slots back at once, as it does when it binds its own
     * endpoint. An application that binds later gets no such proof: a restart after a crash waits out the lease.
     */
    public StandbyNodeBuilder addressBound() {
        this.addressBound = true;
        return this;
    }

    /**
     * Checks every setting, then starts the node: {@code build().start()}.
     *
     * @throws IllegalArgumentException naming the bad setting; nothing was bound or connected
     * @throws IllegalStateException as {@link StandbyNode#start()}
     */
    public StandbyNode start() {
        return build().start();
    }

    /**
     * Checks every setting and returns the node, not started: an application that starts and stops it with its own
     * lifecycle (a Spring {@code SmartLifecycle}, say) calls {@link StandbyNode#start()} later. Changes to this builder
     * afterwards do not reach the node.
     *
     * @throws IllegalArgumentException naming the bad setting
     */
    public StandbyNode build() {
        if (ip == null) {
            throw new IllegalArgumentException("the node's identity (ip and port) is required");
        }
        WatchLinks links = !watchLinks
                ? null
                : watchLease != null ? new WatchLinks(watchLease, watchPort) : WatchLinks.defaultFor(timing);
        if (links != null && links.port() != watchPort) {
            links = new WatchLinks(links.lease(), watchPort);
        }
        if (links != null && links.lease().compareTo(timing.late()) >= 0) {
            throw new IllegalArgumentException("invalid watch lease " + Durations.format(links.lease())
                    + ": must be shorter than the late mark " + Durations.format(timing.late()) + " (two heartbeats)");
        }
        FenceCheck.requireCovered(timing, links == null ? null : links.lease());
        // The endpoint is bound at the start before the node runs, or the start fails: either way a proof.
        NodeConfig unbound = NodeConfig.of(new NodeId(ip, port), maxSlots, timing);
        NodeConfig config = endpoint || addressBound ? unbound.withAddressBound() : unbound;
        RuntimeConfig runtime = new RuntimeConfig(
                timing.poll(), stopTimeout, restartBackoff, maxRestartBackoff, failureLimit, failureWindow);
        RobotTypes robotTypes = (types != null ? types : RobotTypes.builtIn()).with(factories);
        return new StandbyNode(new NodeSettings(
                uri,
                database,
                clientSettings,
                slotDatabase,
                robotDatabase,
                config,
                runtime,
                robotTypes,
                listener,
                endpoint,
                fastFailover,
                clock,
                extensions,
                links));
    }
}
