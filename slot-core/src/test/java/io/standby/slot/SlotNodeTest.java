package io.standby.slot;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.RecordingListener.Event;
import io.standby.slot.RecordingListener.Kind;
import io.standby.testing.TcpProxy;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Nodes with their own threads and short real timings against the test database. Tests wait for facts with a deadline
 * and then assert on what was recorded: events with the JVM's monotonic time (every node runs in this JVM, so their
 * timestamps compare) and the slot documents.
 */
class SlotNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = FreshDatabase.perTest();

    private String dbName;
    private StandbyDatabase admin;
    private final List<Event> log = new CopyOnWriteArrayList<>();
    private final List<SlotNode> nodes = new ArrayList<>();
    private final List<StandbyDatabase> connections = new ArrayList<>();
    private final List<TcpProxy> proxies = new ArrayList<>();

    @BeforeEach
    void setUp() {
        dbName = database.name();
        admin = database.connection();
    }

    @AfterEach
    void tearDown() {
        nodes.forEach(SlotNode::close);
        proxies.forEach(TcpProxy::close);
        connections.forEach(StandbyDatabase::close);
    }

    private SlotNode start(int port, int maxSlots, SlotTiming timing, String uri) {
        return start(port, maxSlots, timing, uri, new SlotListener() {});
    }

    /** With {@code also} told of everything after the recording listener. */
    private SlotNode start(int port, int maxSlots, SlotTiming timing, String uri, SlotListener also) {
        StandbyDatabase db = StandbyDatabase.connect(uri, dbName, timing.operationTimeout(), null);
        connections.add(db);
        NodeConfig config = NodeConfig.of(new NodeId("127.0.0.1", port), maxSlots, timing);
        SlotNode node = SlotNode.builder(db, config)
                .listener(SlotListener.inOrder(new RecordingListener(String.valueOf(port), log), also))
                .build()
                .start();
        nodes.add(node);
        return node;
    }

    private TcpProxy proxy() throws Exception {
        TcpProxy proxy = TcpProxy.to(TestMongo.uri());
        proxies.add(proxy);
        return proxy;
    }

    private List<SlotView> slots() {
        return new SlotTable(admin).list();
    }

    private long owned() {
        return slots().stream().filter(s -> s.state() == SlotState.OWNED).count();
    }

    @Test
    void twentyNodesRacingForFiveSlotsLeaveExactlyFiveOwners() {
        new SlotTable(admin).init(5);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMillis(200));
        for (int i = 0; i < 20; i++) {
            start(7100 + i, 1, timing, TestMongo.uri());
        }

        await().atMost(WAIT)
                .until(() -> owned() == 5
                        && nodes.stream().mapToInt(n -> n.leases().size()).sum() == 5);

        Set<NodeId> owners = slots().stream().map(SlotView::owner).collect(Collectors.toSet());
        assertEquals(5, owners.size(), "five different owners");
        for (SlotNode node : nodes) {
            assertTrue(node.leases().size() <= 1, node.config().node() + " owns more than --max-slots");
        }
        assertLeasesNeverOverlap();
        assertNoNodeEverHeldMoreThan(1);
    }

    @Test
    void oneSlowRenewalDoesNotDelayTheOthersPastTheirDeadline() throws Exception {
        new SlotTable(admin).init(20);
        // One after another, 20 renewals of 200 ms take 4 s: past lease - margin (2.7 s) for the last ones.
        SlotTiming timing = SlotTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(200));
        TcpProxy slow = proxy();
        Map<String, Integer> renewals = new java.util.concurrent.ConcurrentHashMap<>();
        SlotNode node = start(7500, 20, timing, slow.uri(), new SlotListener() {
            @Override
            public void renewed(Lease lease, Duration latency) {
                renewals.merge(lease.slotId(), 1, Integer::sum);
            }
        });
        await().atMost(WAIT).until(() -> node.leases().size() == 20);
        // A few heartbeats at full speed first, so the driver has its connections open before the slowdown:
        // every lease renewed three times.
        await().atMost(WAIT)
                .until(() -> renewals.size() == 20 && renewals.values().stream().allMatch(n -> n >= 3));

        slow.latency(Duration.ofMillis(200));
        await().during(Duration.ofSeconds(8))
                .atMost(WAIT)
                .until(() -> node.leases().size() == 20);

        assertEquals(List.of(), log.stream().filter(e -> e.kind() == Kind.LOST).toList(), "no lease was lost");
        assertEquals(20, owned());
    }

    @Test
    void twentyNodesStartingTogetherShareTwentySlotsFromTheRegistryWithFewConflicts() {
        new SlotTable(admin).init(20);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMillis(200));
        for (int i = 0; i < 20; i++) {
            start(7600 + i, 1, timing, TestMongo.uri());
        }

        await().atMost(WAIT)
                .until(() -> owned() == 20
                        && nodes.stream().mapToInt(n -> n.leases().size()).sum() == 20);

        long lost = nodes.stream().mapToLong(n -> n.claims().lost()).sum();
        long won = nodes.stream().mapToLong(n -> n.claims().won()).sum();
        long failed = nodes.stream().mapToLong(n -> n.claims().failed()).sum();
        // Every slot went to one node once and never changed hands. A claim whose reply timed out on a loaded
        // machine counts as failed, yet it may have landed: the node's next poll takes the slot back as its
        // own, once, which is an acquisition without a won claim.
        Map<String, Long> acquisitions = log.stream()
                .filter(e -> e.kind() == Kind.ACQUIRED)
                .collect(Collectors.groupingBy(Event::slotId, Collectors.counting()));
        assertEquals(20, acquisitions.size(), "every slot was acquired: " + acquisitions);
        assertTrue(acquisitions.values().stream().allMatch(n -> n == 1), "a slot changed hands: " + acquisitions);
        assertTrue(won >= 20 - failed && won <= 20, "won " + won + " claims, " + failed + " timed out");
        assertTrue(lost <= 10, "claims lost to another node: " + lost);
        assertLeasesNeverOverlap();
        assertNoNodeEverHeldMoreThan(1);
    }

    @Test
    void aDrainedNodeHandsItsSlotsToStandbysOneAtATimeThenSaysItIsDone() throws Exception {
        new SlotTable(admin).init(2);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMillis(200));
        // What the database says when the drain lets go of a slot: the owners of every slot at that moment.
        Map<String, Map<String, NodeId>> ownersWhenReleasing = new java.util.concurrent.ConcurrentHashMap<>();
        SlotNode owner = start(7650, 2, timing, TestMongo.uri(), new SlotListener() {
            @Override
            public void releasing(Lease lease) {
                Map<String, NodeId> owners = new java.util.HashMap<>();
                slots().forEach(slot -> owners.put(slot.id(), slot.owner()));
                ownersWhenReleasing.put(lease.slotId(), owners);
            }
        });
        await().atMost(WAIT).until(() -> owner.leases().size() == 2);
        SlotNode standby = start(7651, 2, timing, TestMongo.uri());
        NodeTable table = new NodeTable(admin);
        await().atMost(WAIT).until(() -> table.list().size() == 2);

        table.drain(owner.config().node());

        owner.drained().get(30, java.util.concurrent.TimeUnit.SECONDS);
        // Drained once the database shows the last slot owned elsewhere: its claim lands there a moment
        // before the standby's thread counts the lease as its own.
        await().atMost(WAIT)
                .alias("the standby holds both slots")
                .until(() -> standby.leases().size() == 2);
        assertEquals(List.of(), owner.leases());
        // One at a time: the second slot was released only after the standby had taken the first.
        List<Event> events =
                log.stream().sorted(Comparator.comparingLong(Event::nanos)).toList();
        List<Event> released = events.stream()
                .filter(e -> e.kind() == Kind.LOST && e.node().equals("7650"))
                .toList();
        assertEquals(2, released.size(), events.toString());
        assertTrue(released.stream().allMatch(e -> e.reason() == LossReason.RELEASED), released.toString());
        // Judged by the slot documents as the drain saw them, not by the order in which the two nodes' threads
        // got to tell their listeners: a claim lands in the database before its node hears that it won.
        String first = released.get(0).slotId();
        assertEquals(
                standby.config().node(),
                ownersWhenReleasing.get(released.get(1).slotId()).get(first),
                "the first slot was owned by the standby when the second was released: " + ownersWhenReleasing + " "
                        + events);
        assertLeasesNeverOverlap();
    }

    @Test
    void nodesWithSeveralSlotsEachShareAllSlotsWithinTheirLimits() {
        new SlotTable(admin).init(7);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMillis(200));
        for (int i = 0; i < 3; i++) {
            start(7200 + i, 3, timing, TestMongo.uri());
        }

        await().atMost(WAIT).until(() -> owned() == 7);

        for (SlotNode node : nodes) {
            assertTrue(node.leases().size() <= 3);
        }
        assertLeasesNeverOverlap();
        assertNoNodeEverHeldMoreThan(3);
    }

    @Test
    void aPartitionedOwnerStopsBeforeAnyOtherNodeTakesItsSlot() throws Exception {
        new SlotTable(admin).init(1);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));
        TcpProxy link = proxy();
        SlotNode a = start(7301, 1, timing, link.uri());
        await().atMost(WAIT).until(() -> a.leases().size() == 1);
        long epoch = a.leases().getFirst().epoch();
        SlotNode b = start(7302, 1, timing, TestMongo.uri());

        link.pause();
        long pausedAt = System.nanoTime();
        await().atMost(WAIT).until(() -> b.leases().size() == 1);

        Event lost = only(Kind.LOST, "7301");
        Event taken = only(Kind.ACQUIRED, "7302");
        assertEquals(LossReason.FENCED, lost.reason());
        assertTrue(lost.nanos() < taken.nanos(), "the paused owner reported its loss before the takeover");
        assertEquals(epoch + 1, taken.epoch());
        assertTrue(
                taken.nanos() - pausedAt
                        >= timing.lease().toNanos() - timing.heartbeat().toNanos(),
                "the takeover waited out the lease from the owner's last heartbeat");

        link.resume();
        await().during(Duration.ofMillis(800))
                .atMost(WAIT)
                .until(() -> a.leases().isEmpty() && b.leases().size() == 1);
        assertLeasesNeverOverlap();
    }

    @Test
    void afterTheDatabaseWasUnreachableLongerThanTheLeaseEverybodyRecovers() throws Exception {
        new SlotTable(admin).init(3);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(200), Duration.ofMillis(1500), Duration.ofMillis(200));
        TcpProxy database = proxy();
        for (int i = 0; i < 4; i++) {
            start(7400 + i, 1, timing, database.uri());
        }
        // The owners' own views too: a claim the database applied but whose reply is still on its way when
        // the link pauses is never acquired, so it is never lost either.
        await().atMost(WAIT)
                .until(() -> owned() == 3
                        && nodes.stream().mapToInt(n -> n.leases().size()).sum() == 3);

        database.pause();
        long pausedAt = System.nanoTime();
        await().atMost(WAIT).until(() -> nodes.stream().allMatch(n -> n.leases().isEmpty()));
        long lostAll = System.nanoTime();
        List<Event> losses = log.stream().filter(e -> e.kind() == Kind.LOST).toList();
        assertEquals(3, losses.size());
        assertTrue(losses.stream().allMatch(e -> e.reason() == LossReason.FENCED));
        assertTrue(
                lostAll - pausedAt
                        < timing.lease().toNanos() + Duration.ofSeconds(2).toNanos(),
                "every owner stopped within about a lease of losing the database");

        database.resume();
        await().atMost(WAIT)
                .until(() -> owned() == 3
                        && nodes.stream().mapToInt(n -> n.leases().size()).sum() == 3);
        assertLeasesNeverOverlap();
    }

    @Test
    void aGracefulStopHandsTheSlotOverWithinAPollNotALease() {
        new SlotTable(admin).init(1);
        SlotTiming timing = SlotTiming.of(Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofMillis(200));
        SlotNode a = start(7501, 1, timing, TestMongo.uri());
        await().atMost(WAIT).until(() -> a.leases().size() == 1);
        SlotNode b = start(7502, 1, timing, TestMongo.uri());

        a.close();
        long closedAt = System.nanoTime();
        await().atMost(WAIT).until(() -> b.leases().size() == 1);

        Event taken = only(Kind.ACQUIRED, "7502");
        assertTrue(taken.nanos() - closedAt < timing.lease().toNanos() / 2, "taken without waiting out the 10s lease");
        assertEquals(LossReason.RELEASED, only(Kind.LOST, "7501").reason());
        assertLeasesNeverOverlap();
    }

    /**
     * After a forward jump of the database's clock, a live owner's last heartbeat looks long past to the server until
     * the owner renews. (mongo-java-server ignores its backend clock for {@code $$NOW}, so the test moves the heartbeat
     * back an hour, which is the same view from the server's side.) The standbys' own observation window must keep them
     * from taking the slot in that gap.
     */
    @Test
    void aLiveSlotTheDatabaseJudgesExpiredIsNotHandedAway() {
        new SlotTable(admin).init(1);
        SlotTiming timing = SlotTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofMillis(100));
        SlotNode a = start(7601, 1, timing, TestMongo.uri());
        await().atMost(WAIT).until(() -> a.leases().size() == 1);
        long epoch = a.leases().getFirst().epoch();
        SlotNode b = start(7602, 1, timing, TestMongo.uri());
        await().atMost(WAIT).until(() -> slots().getFirst().age().toMillis() < 100);

        for (int jump = 0; jump < 3; jump++) {
            admin.database()
                    .getCollection("slots")
                    .updateOne(
                            Filters.eq("_id", "slot-0"),
                            Updates.set("time", Date.from(Instant.now().minus(Duration.ofHours(1)))));
            assertTrue(slots().getFirst().expired(), "the database judges the live lease expired");
            // b polls ten times before a's next renewal.
            await().during(timing.heartbeat().plusMillis(200))
                    .atMost(WAIT)
                    .until(() -> b.leases().isEmpty());
        }
        SlotView after = slots().getFirst();
        assertEquals(epoch, after.epoch());
        assertEquals(new NodeId("127.0.0.1", 7601), after.owner());
        assertEquals(1, a.leases().size());
        assertTrue(log.stream().noneMatch(e -> e.kind() == Kind.LOST));
    }

    private Event only(Kind kind, String node) {
        List<Event> matching = log.stream()
                .filter(e -> e.kind() == kind && e.node().equals(node))
                .toList();
        assertEquals(1, matching.size(), () -> kind + " events of " + node + ": " + matching);
        return matching.getFirst();
    }

    /**
     * For every slot, each lease was reported lost before the next one was acquired, and epochs only went up: never two
     * holders of one slot at once, on recorded timestamps.
     */
    private void assertLeasesNeverOverlap() {
        Map<String, List<Event>> bySlot = log.stream()
                .filter(e -> e.kind() != Kind.RELEASING)
                .sorted(Comparator.comparingLong(Event::nanos))
                .collect(Collectors.groupingBy(Event::slotId));
        bySlot.forEach((slot, events) -> {
            Event open = null;
            long lastEpoch = -1;
            for (Event e : events) {
                if (e.kind() == Kind.ACQUIRED) {
                    assertEquals(null, open, slot + " acquired by " + e.node() + " while " + open + " still held it");
                    assertTrue(e.epoch() > lastEpoch, slot + " epoch went backwards: " + events);
                    open = e;
                    lastEpoch = e.epoch();
                } else {
                    assertTrue(
                            open != null && open.node().equals(e.node()) && open.epoch() == e.epoch(),
                            slot + " lost without being held: " + e + " in " + events);
                    open = null;
                }
            }
        });
    }

    private void assertNoNodeEverHeldMoreThan(int max) {
        Map<String, Integer> held = new HashMap<>();
        log.stream().sorted(Comparator.comparingLong(Event::nanos)).forEach(e -> {
            if (e.kind() == Kind.ACQUIRED) {
                int now = held.merge(e.node(), 1, Integer::sum);
                assertTrue(now <= max, e.node() + " held " + now + " slots");
            } else if (e.kind() == Kind.LOST) {
                held.merge(e.node(), -1, Integer::sum);
            }
        });
    }
}
