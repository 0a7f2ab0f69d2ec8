package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static io.standby.slot.internal.ProtocolFixture.TIMING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.standby.slot.Lease;
import io.standby.slot.NodeId;
import io.standby.slot.NodeState;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotView;
import io.standby.slot.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A poll reads only its share of the free slots ({@link FreeShare}), and still every slot is served while some node has
 * room: a free slot whose readers are registered with room but never poll (gone, or ranking by another registry) is
 * read, and claimed, by a node with room within a few polls, because a poll that shows a node nothing to claim makes it
 * read every free slot at the next. The first poll of a process does not read every slot. Real registry and store on
 * the embedded server; the node's clock is ticked by hand.
 */
class SlotProtocolFreeShareTest {

    /** Registered with room; they never poll. */
    private static final List<NodeId> ABSENT = IntStream.range(0, 15)
            .mapToObj(i -> new NodeId("10.0.0." + (i + 2), 7700))
            .toList();

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    private MongoNodeRegistry registry;
    private final ManualClock clock = protocol.clock();
    /** The free slots each poll of the node read. */
    private final List<List<String>> freeRead = new ArrayList<>();

    @BeforeEach
    void setUp() {
        registry = protocol.registry();
    }

    private SlotProtocol member(int maxSlots) {
        SlotStore watched = new FailingSlotStore(protocol.store()) {
            @Override
            public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
                Poll poll = super.poll(me, lateBefore, free);
                freeRead.add(poll.slots().stream()
                        .filter(s -> s.owner() == null)
                        .map(SlotView::id)
                        .toList());
                return poll;
            }
        };
        SlotProtocol node =
                protocol.node(A).maxSlots(maxSlots).on(watched).member(registry).build();
        return node;
    }

    private void register(List<NodeId> nodes, int maxSlots, int held) {
        for (NodeId node : nodes) {
            List<String> slots =
                    IntStream.range(0, held).mapToObj(i -> node + "-held-" + i).toList();
            registry.write(
                    new NodeRegistry.NodeRecord(
                            node,
                            "1-" + node.port() + "@" + node.ip(),
                            node.ip(),
                            held > 0 ? NodeState.OWNER : NodeState.STANDBY,
                            slots,
                            maxSlots,
                            0,
                            0,
                            0,
                            0,
                            0,
                            "dev",
                            Duration.ofSeconds(60),
                            List.of("counter")),
                    NodeRegistry.Write.FIRST);
        }
    }

    /** The ranking the node computes from this registry: itself with room, and the absent nodes. */
    private static FreeShare.Ranking ranking() {
        List<ClaimPlan.Member> live = new ArrayList<>(
                ABSENT.stream().map(n -> new ClaimPlan.Member(n, 0, 5, 0)).toList());
        live.add(new ClaimPlan.Member(A, 0, 1, 0));
        return FreeShare.Ranking.of(live, A);
    }

    /**
     * A slot id whose range the node reads only once it counts itself among {@code readers} of each range, not before.
     */
    private static String slotReadFirstAmong(int readers) {
        FreeShare.Ranking ranking = ranking();
        FreeShare narrower = ranking.share(A, readers / 2);
        FreeShare wider = ranking.share(A, readers);
        return IntStream.range(0, 10_000)
                .mapToObj(i -> "slot-" + i)
                .filter(id -> !in(narrower, id) && in(wider, id))
                .findFirst()
                .orElseThrow();
    }

    private static boolean in(FreeShare share, String slotId) {
        int bucket = SlotRules.bucket(slotId);
        return share.coversEveryFreeSlot()
                || share.ranges().stream().anyMatch(r -> r.from() <= bucket && bucket < r.to());
    }

    private List<String> held(SlotProtocol node) {
        return node.leases().stream().map(Lease::slotId).toList();
    }

    @Test
    void aFreeSlotWhoseReadersNeverPollIsClaimedByANodeWithRoomWithinAFewPolls() throws Exception {
        register(ABSENT, 5, 0);
        // Its range's first readers are two of the absent nodes: the node reads it only once its share
        // showed it nothing.
        String starving = slotReadFirstAmong(FreeShare.READERS * 2);
        assertTrue(protocol.store().create(starving));
        SlotProtocol a = member(1);
        a.join();

        int polls = 0;
        while (held(a).isEmpty() && polls < 8) {
            polls++;
            a.poll();
            clock.tick(TIMING.poll());
        }

        assertEquals(List.of(starving), held(a), "served; the polls read " + freeRead);
        assertEquals(List.of(), freeRead.getFirst(), "not in the node's first share");
        assertTrue(
                polls <= 3,
                "a poll that showed nothing, one that reads every free slot, a head start: " + polls + " polls, "
                        + freeRead);
    }

    @Test
    void aPollReadsItsShareOfTheFreeSlotsNotEveryOne() throws Exception {
        register(ABSENT, 5, 0);
        for (int i = 0; i < 400; i++) {
            protocol.store().create("slot-" + i);
        }
        SlotProtocol a = member(1);
        a.join();

        assertEquals(1, a.poll());

        List<String> read = freeRead.getFirst();
        long expected = IntStream.range(0, 400)
                .mapToObj(i -> "slot-" + i)
                .filter(id -> in(ranking().share(A, FreeShare.READERS), id))
                .count();
        assertEquals(expected, read.size(), "its ranges' slots, no others");
        assertTrue(read.size() < 400 / 3, "about READERS / 16 nodes of 400: " + read.size());
        assertTrue(read.contains(held(a).getFirst()), "and it claimed one of them at once, as the plan gives it");
    }

    @Test
    void aFullNodeReadsNoFreeSlotAndANodeAloneWithRoomReadsEveryOne() throws Exception {
        // The others are full: only this node has room, so it reads every free slot.
        register(ABSENT, 1, 1);
        for (int i = 0; i < 40; i++) {
            protocol.store().create("slot-" + i);
        }
        SlotProtocol a = member(1);
        a.join();
        assertEquals(1, a.poll());
        assertEquals(40, freeRead.getFirst().size());

        clock.tick(TIMING.poll());
        a.poll();
        assertEquals(
                List.of(),
                freeRead.getLast(),
                "full: it could claim none; reads "
                        + freeRead.stream().map(List::size).toList() + ", held " + held(a));
    }

    @Test
    void aSlotCreatedBeforeBucketsIsReadByEveryShare() throws Exception {
        register(ABSENT, 5, 0);
        String legacy = slotReadFirstAmong(FreeShare.READERS * 2);
        Document doc = SlotRules.unowned(legacy);
        doc.remove(SlotFields.BUCKET);
        MongoCollection<Document> slots = protocol.db().database().getCollection("slots");
        protocol.slots().insertOne(doc);
        SlotProtocol a = member(1);
        a.join();

        a.poll();

        assertEquals(List.of(legacy), freeRead.getFirst(), "no bucket: read whatever the share");
    }

    @Test
    void theFirstPollReadsNoSlotOfALiveOwnerButItsOwnAddresses() throws Exception {
        protocol.store().create("slot-0");
        protocol.store().create("slot-1");
        SlotStore.Ownership other = new SlotStore.Ownership(new NodeId("127.0.0.1", 7002), "o", TIMING.lease());
        assertTrue(protocol.store().claim(protocol.store().read("slot-0").orElseThrow(), other));
        assertTrue(protocol.store()
                .claim(
                        protocol.store().read("slot-1").orElseThrow(),
                        new SlotStore.Ownership(A, "earlier", TIMING.lease())));
        List<List<String>> polled = new ArrayList<>();
        SlotProtocol a = protocol.node(A)
                .maxSlots(2)
                .on(new FailingSlotStore(protocol.store()) {
                    @Override
                    public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
                        Poll poll = super.poll(me, lateBefore, free);
                        polled.add(poll.slots().stream().map(SlotView::id).toList());
                        return poll;
                    }
                })
                .build();

        a.poll();

        assertEquals(List.of("slot-1"), polled.getFirst(), "its own address's slot, not the one a live owner holds");
        assertFalse(held(a).contains("slot-0"));
    }

    @Test
    void afterAFirstPollThatMatchedNothingThePollReadsEverySlotOnceToLearnTheServersTime() throws Exception {
        protocol.store().create("slot-0");
        // Held by a node of an earlier version, which writes no owner document, and timely.
        assertTrue(protocol.store()
                .claim(
                        protocol.store().read("slot-0").orElseThrow(),
                        new SlotStore.Ownership(new NodeId("127.0.0.1", 7002), "o", TIMING.lease())));
        List<List<String>> polled = new ArrayList<>();
        SlotProtocol a = protocol.node(A)
                .on(new FailingSlotStore(protocol.store()) {
                    @Override
                    public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
                        Poll poll = super.poll(me, lateBefore, free);
                        polled.add(poll.slots().stream().map(SlotView::id).toList());
                        return poll;
                    }
                })
                .build();

        for (int i = 0; i < 3; i++) {
            a.poll();
            clock.tick(TIMING.poll());
        }

        assertEquals(
                List.of(List.of(), List.of("slot-0"), List.of()),
                polled,
                "nothing matched, so no server time: the next poll reads every slot, and then only late ones again");
    }
}
