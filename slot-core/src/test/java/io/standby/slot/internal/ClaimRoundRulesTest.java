package io.standby.slot.internal;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.ManualClock;
import io.standby.slot.NodeConfig;
import io.standby.slot.NodeId;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotTiming;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The claims of one poll: they go on while the read they come from is at most a poll old, and a member
 * plans itself as the registry lists it, as every other node plans it, not as it is right now.
 */
class ClaimRoundRulesTest {

    private static final SlotTiming TIMING = SlotTiming.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(1));
    private static final NodeId A = new NodeId("127.0.0.1", 7001);
    private static final NodeId B = new NodeId("127.0.0.1", 7002);

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = TestDatabase.of(
            (uri, name) -> StandbyDatabase.connect(uri, name, Duration.ofSeconds(10), null), StandbyDatabase::database);

    private StandbyDatabase db;
    private MongoSlotStore store;
    private final ManualClock clock = new ManualClock();

    @BeforeEach
    void setUp() {
        db = database.connection();
        store = new MongoSlotStore(db);
    }

    private SlotView slot(String id) {
        return store.read(id).orElseThrow();
    }

    /** A node without a membership whose first claim of a poll takes {@code took} on its own clock. */
    private SlotProtocol slowFirstClaim(Duration took) {
        AtomicBoolean first = new AtomicBoolean(true);
        SlotStore slow = new FailingSlotStore(store) {
            @Override
            public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
                boolean won = super.claim(seen, owner, ownerBeat);
                if (first.getAndSet(false)) {
                    clock.tick(took);
                }
                return won;
            }
        };
        return new SlotProtocol(ProtocolSetup.of(slow, new NodeConfig(A, 3, TIMING, NodeConfig.newInstanceId()), clock, new EveryEvent())
                .withSleeper(d -> { }));
    }

    private SlotProtocol member(NodeId id, int maxSlots) {
        return new SlotProtocol(ProtocolSetup.of(store, new NodeConfig(id, maxSlots, TIMING, NodeConfig.newInstanceId()), clock, new EveryEvent())
                .withSleeper(d -> { })
                .withMembership(new MongoNodeRegistry(db.database())));
    }

    @Test
    void aPollClaimsOnFromAReadExactlyAPollOld() throws Exception {
        new SlotTable(db).init(3);

        assertEquals(3, slowFirstClaim(TIMING.poll()).poll(), "a poll old is not older than a poll");
    }

    @Test
    void aPollStopsClaimingOnceItsReadIsMoreThanAPollOld() throws Exception {
        new SlotTable(db).init(3);
        SlotProtocol a = slowFirstClaim(TIMING.poll().plusNanos(1));

        assertEquals(1, a.poll(), "the first claim took longer than a poll: the others wait for a fresh read");
        assertEquals(2, store.readAll().stream().filter(SlotView::released).count());
        clock.tick(TIMING.poll());
        assertEquals(2, a.poll());
    }

    @Test
    void aMemberPlansItselfAsTheRegistryListsItNotAsItIsNow() throws Exception {
        SlotProtocol a = member(A, 2);
        SlotProtocol b = member(B, 1);
        a.poll();
        b.poll();
        // A's registry document says it is full, as a document a write behind would: every node plans A so,
        // and so does A itself.
        db.database().getCollection(MongoNodeRegistry.COLLECTION)
                .updateOne(Filters.eq("port", A.port()), Updates.set("held", 2));
        store.create("slot-0");
        store.create("slot-1");

        clock.tick(TIMING.poll());
        assertEquals(0, a.poll(), "the plan gives B one slot and A none: A waits a head start");
        assertNull(slot("slot-0").owner());
        assertNull(slot("slot-1").owner());

        clock.tick(TIMING.poll());
        assertEquals(2, a.poll(), "B never came: after the head start A takes both");
    }
}
