package io.standby.slot.internal;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.standby.slot.FreshDatabase;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotListener;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.slot.testing.ManualClock;
import io.standby.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What every test of the slot protocol stands on: a fresh database per test on this run's server (see
 * {@link TestDatabase}), its slot store, one hand-moved clock that all the test's nodes share, and nodes built by role.
 * A test class registers it on an instance field and keeps only what differs: its timing, its listeners and the stores
 * it wraps to count or fail calls.
 *
 * <pre>{@code
 * @RegisterExtension
 * final ProtocolFixture protocol = new ProtocolFixture(TIMING);
 *
 * SlotProtocol a = protocol.member(A).maxSlots(2).build();
 * }</pre>
 *
 * As the model of ShedLock's abstract lock provider test: the shared part lives here, once.
 */
final class ProtocolFixture implements BeforeEachCallback, AfterEachCallback {

    /** The timing most protocol tests use: heartbeat 2 s, lease 5 s, poll 1 s. */
    static final SlotTiming TIMING = SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(1));
    /** Late at 4 s (a heartbeat of 2 s), and a lease of 10 s that a slot set late keeps while a test runs. */
    static final SlotTiming LATE_AT_4S =
            SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(1));
    /** Late at 4 s, and a lease of 30 s that a late slot never outlives while a test runs on a loaded machine. */
    static final SlotTiming LATE_AT_4S_LONG_LEASE =
            SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofSeconds(1));

    static final NodeId A = new NodeId("127.0.0.1", 7001);
    static final NodeId B = new NodeId("127.0.0.1", 7002);
    static final NodeId C = new NodeId("127.0.0.1", 7003);

    private final TestDatabase<StandbyDatabase> database;
    private final ManualClock clock = new ManualClock();
    private final SlotTiming timing;
    private MongoSlotStore store;
    private final List<String> reads = new CopyOnWriteArrayList<>();
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    private StandbyDatabase watched;

    /** Nodes with {@link #TIMING}. */
    ProtocolFixture() {
        this(TIMING);
    }

    /** Nodes with {@code timing} unless a node says otherwise. */
    ProtocolFixture(SlotTiming timing) {
        this(timing, FreshDatabase.perTest());
    }

    private ProtocolFixture(SlotTiming timing, TestDatabase<StandbyDatabase> database) {
        this.timing = Objects.requireNonNull(timing, "timing");
        this.database = database;
        // A node's clock is far from zero, as System.nanoTime() is: a time judged from a reading of it, not the
        // reading itself, and no zero taken for "never".
        clock.tick(Duration.ofHours(1));
    }

    /** The same on the server at the URI {@code server} gives when each test starts (see {@link TestDatabase#on}). */
    ProtocolFixture on(Supplier<String> server) {
        return new ProtocolFixture(timing, database.on(server));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Delegated, not registered beside it: the store needs the connection, so the order is this one.
        database.beforeEach(context);
        store = new MongoSlotStore(database.connection());
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        store = null;
        try (StandbyDatabase opened = watched) {
            // Closed before the database is dropped, as a test's own @AfterEach would.
            watched = null;
        } finally {
            database.afterEach(context);
        }
    }

    /** This test's database. */
    StandbyDatabase db() {
        return database.connection();
    }

    /** The server's URI, for a test that opens a second connection of its own. */
    String uri() {
        return database.uri();
    }

    /**
     * A second connection to this test's database, opened at the first call, that adds to {@link #reads()} the
     * collection of every find and aggregate it sends, as the server sees them: what a node built on it reads, poll by
     * poll.
     */
    StandbyDatabase watched() {
        if (watched == null) {
            CommandListener readsOfCollections = new CommandListener() {
                @Override
                public void commandStarted(CommandStartedEvent event) {
                    if (event.getCommandName().equals("aggregate")
                            || event.getCommandName().equals("find")) {
                        reads.add(event.getCommand()
                                .getString(event.getCommandName())
                                .getValue());
                    }
                }
            };
            watched = StandbyDatabase.connect(
                    uri(),
                    db().database().getName(),
                    Duration.ofSeconds(10),
                    settings -> settings.addCommandListener(readsOfCollections));
        }
        return watched;
    }

    /** The collections read through {@link #watched()}, in order; a test clears it to start counting afresh. */
    List<String> reads() {
        return reads;
    }

    /** The slot store over this test's database, the one nodes use unless built {@link Node#on} another. */
    MongoSlotStore store() {
        return store;
    }

    /** The raw slots collection, for a test that sets up what the server sees. */
    MongoCollection<Document> slots() {
        return db().database().getCollection(SlotFields.COLLECTION);
    }

    /** The owner processes' documents. */
    MongoCollection<Document> owners() {
        return db().database().getCollection(SlotFields.OWNERS_COLLECTION);
    }

    /** Every wait of every node built here, in order: their sleepers return at once. */
    List<Duration> sleeps() {
        return sleeps;
    }

    /** The clock of every node built here; it moves only when the test ticks it. */
    ManualClock clock() {
        return clock;
    }

    /** Creates slots {@code slot-0} to {@code slot-(count-1)}, as an operator's init would. */
    void init(int count) {
        new SlotTable(db()).init(count);
    }

    /** A new registry over this test's database. */
    MongoNodeRegistry registry() {
        return new MongoNodeRegistry(db().database());
    }

    /** The slot as the server has it now. */
    SlotView slot(String id) {
        return store.read(id).orElseThrow();
    }

    /**
     * Makes the server see the slot's last heartbeat {@code ago} before now, as an owner that stopped would leave it.
     */
    void heartbeatAgo(String id, Duration ago) {
        slots().updateOne(
                        Filters.eq("_id", id),
                        Updates.set("time", Date.from(Instant.now().minus(ago))));
    }

    /**
     * The first of 10.0.0.2:7700, 10.0.0.3:7700, ... whose plan beside {@code me} (room {@code myRoom}; its own room
     * one), over the slots as they are now, passes {@code plan}: which node the plan puts ahead of {@code me} depends
     * on the hash of its address, so a test finds one rather than naming it.
     */
    NodeId otherPlanned(NodeId me, int myRoom, Predicate<Set<String>> plan) {
        List<SlotView> slots = store.readAll();
        return IntStream.range(2, 250)
                .mapToObj(i -> new NodeId("10.0.0." + i, 7700))
                .filter(other -> plan.test(ClaimPlan.mine(
                        slots,
                        slots,
                        List.of(new ClaimPlan.Member(other, 0, 1), new ClaimPlan.Member(me, 0, myRoom)),
                        other)))
                .findFirst()
                .orElseThrow();
    }

    /**
     * Writes {@code id} into the registry as a live standby on another host with room for one, writing every
     * {@code interval}: as a node that registered leaves it, whether it still runs or died since.
     */
    void registerStandby(NodeId id, String instance, Duration interval) {
        registry()
                .write(
                        new NodeRegistry.NodeRecord(
                                id,
                                instance,
                                "elsewhere",
                                NodeState.STANDBY,
                                List.of(),
                                1,
                                0,
                                0,
                                0,
                                0,
                                0,
                                "dev",
                                interval,
                                List.of("counter")),
                        NodeRegistry.Write.FIRST);
    }

    /** A node outside any membership: it plans its claims from the slots alone. */
    Node node(NodeId id) {
        return new Node(id);
    }

    /** A node that writes itself into this database's registry and plans its claims from it. */
    Node member(NodeId id) {
        return new Node(id).member(registry());
    }

    /**
     * One node to build. Unless told otherwise: one slot at most, the fixture's timing, a fresh instance id, address
     * not bound, the fixture's store, a listener that takes every event, and a sleeper that returns at once and records
     * the wait in {@link #sleeps()}.
     */
    final class Node {

        private final NodeId id;
        private int maxSlots = 1;
        private SlotTiming nodeTiming = timing;
        private String instance = NodeConfig.newInstanceId();
        private boolean bound;
        private SlotStore on;
        private SlotListener listener = new EveryEvent();
        private Sleeper sleeper = sleeps::add;
        private NodeRegistry registry;
        private OwnerProbe probe;

        private Node(NodeId id) {
            this.id = Objects.requireNonNull(id, "id");
        }

        Node maxSlots(int maxSlots) {
            this.maxSlots = maxSlots;
            return this;
        }

        Node timing(SlotTiming timing) {
            this.nodeTiming = timing;
            return this;
        }

        /** An earlier or later process of the same node shares its instance id. */
        Node instance(String instance) {
            this.instance = instance;
            return this;
        }

        /** Its process bound its ip:port before it started: proof that earlier processes with it are gone. */
        Node bound() {
            return bound(true);
        }

        Node bound(boolean bound) {
            this.bound = bound;
            return this;
        }

        /** Works on {@code store}, typically the fixture's store wrapped to count or fail calls. */
        Node on(SlotStore store) {
            this.on = store;
            return this;
        }

        Node listener(SlotListener listener) {
            this.listener = listener;
            return this;
        }

        Node sleeper(Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        /** A member of {@code registry} ({@link NodeRegistry#NONE}: none, as set explicitly). */
        Node member(NodeRegistry registry) {
            this.registry = registry;
            return this;
        }

        /** Fast failover, probing owners with {@code probe} within 100 ms, waiting with the node's sleeper. */
        Node fastFailover(OwnerProbe probe) {
            this.probe = probe;
            return this;
        }

        /** Its configuration, for a test that asserts on it. */
        NodeConfig config() {
            return new NodeConfig(id, maxSlots, nodeTiming, instance, bound);
        }

        /** The setup, for a test that adds what this builder does not know (fan-out, watch links). */
        ProtocolSetup setup() {
            ProtocolSetup setup = ProtocolSetup.of(on != null ? on : store, config(), clock, listener)
                    .withSleeper(sleeper);
            if (registry != null) {
                setup = setup.withMembership(registry);
            }
            if (probe != null) {
                setup = setup.withFastFailover(
                        new GoneOwners(probe, sleeper, clock, Duration.ofMillis(100), GoneOwners.GAP));
            }
            return setup;
        }

        SlotProtocol build() {
            return new SlotProtocol(setup());
        }
    }
}
