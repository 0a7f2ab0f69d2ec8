package io.standby.slot.internal;

import static io.standby.slot.internal.ProtocolFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the MongoDB slot protocol.store() reads and writes, on the embedded wire server: which documents count as slots
 * (a hand-edited one must not stop a node, nor be misread), what a read reports of them, and the compare-and-sets that
 * must report no match when they changed nothing.
 */
class SlotStoreFiltersTest {

    private static final Duration LEASE = Duration.ofSeconds(5);

    @RegisterExtension
    final ProtocolFixture protocol = new ProtocolFixture();

    @BeforeEach
    void setUp() {}

    private static SlotStore.Ownership owner(NodeId node, String instance) {
        return new SlotStore.Ownership(node, instance, LEASE);
    }

    /** A well-formed owned slot document, live by the server's clock; callers change one field of it. */
    private static Document ownedDocument(String id) {
        return new Document("_id", id)
                .append("ip", "127.0.0.1")
                .append("port", 7001)
                .append("time", new Date())
                .append("lease", 5000L)
                .append("epoch", 3L)
                .append("instance", "i-1")
                .append("changes", 0L);
    }

    private List<String> readIds() {
        return protocol.store().readAll().stream().map(SlotView::id).toList();
    }

    @Test
    void theReadListsSlotsInTheirNaturalOrderWhateverOrderTheServerKeepsThem() {
        for (String id : List.of("slot-10", "slot-2", "slot-0", "slot-1")) {
            protocol.slots().insertOne(SlotRules.unowned(id));
        }

        assertEquals(List.of("slot-0", "slot-1", "slot-2", "slot-10"), readIds());
    }

    @Test
    void epochsAndLeasesAreWholeNumbersHoweverTheShellWroteThem() {
        // mongosh writes numbers as doubles: 3.0 is a whole number, 3.5 and Infinity are not.
        protocol.slots()
                .insertOne(ownedDocument("slot-0")
                        .append("epoch", 3.0)
                        .append("lease", 5000.0)
                        .append("port", 7001.0));
        protocol.slots().insertOne(ownedDocument("slot-1").append("epoch", 3.5));
        protocol.slots().insertOne(ownedDocument("slot-2").append("epoch", Double.POSITIVE_INFINITY));
        protocol.slots().insertOne(ownedDocument("slot-3").append("lease", 5000.5));
        protocol.slots().insertOne(ownedDocument("slot-4").append("epoch", "3"));

        assertEquals(List.of("slot-0"), readIds());
        SlotView shellWritten = protocol.store().read("slot-0").orElseThrow();
        assertEquals(3, shellWritten.epoch());
        assertEquals(LEASE, shellWritten.lease());
        assertEquals(A, shellWritten.owner());
        assertEquals(Optional.empty(), protocol.store().read("slot-1"), "a single read skips it as the poll's does");
    }

    @Test
    void aDocumentWithoutTheSlotsShapeIsSkippedAndTheOthersStillRead() {
        protocol.slots().insertOne(SlotRules.unowned("slot-0"));
        protocol.slots().insertOne(ownedDocument("slot-1").append("lease", -1L));
        protocol.slots().insertOne(ownedDocument("slot-2").append("port", null));
        protocol.slots().insertOne(ownedDocument("slot-3").append("ip", null));
        protocol.slots().insertOne(ownedDocument("slot-4").append("ip", 127));
        protocol.slots().insertOne(ownedDocument("slot-5").append("port", "7001"));
        protocol.slots().insertOne(ownedDocument("slot-6").append("instance", 1));
        protocol.slots().insertOne(ownedDocument("slot-7").append("time", "yesterday"));
        protocol.slots().insertOne(ownedDocument("slot-8").append("port", 70_001));
        protocol.slots().insertOne(ownedDocument("slot-9"));

        assertEquals(List.of("slot-0", "slot-9"), readIds());
        SlotView owned = protocol.store().read("slot-9").orElseThrow();
        assertEquals(A, owned.owner());
        assertEquals("i-1", owned.instance());
        assertFalse(owned.expired());
    }

    @Test
    void aSlotMendedByHandIsReadAgain() {
        protocol.slots().insertOne(ownedDocument("slot-0").append("lease", -1L));
        assertEquals(List.of(), readIds());

        protocol.slots().updateOne(Filters.eq("_id", "slot-0"), Updates.set("lease", 5000L));

        assertEquals(List.of("slot-0"), readIds());
    }

    @Test
    void aLateMarkCountsOnlyWhenItIsAPositiveNumberAndAMissingChangeCountIsZero() {
        protocol.slots().insertOne(ownedDocument("slot-0").append("late", 4000L).append("changes", 7L));
        protocol.slots().insertOne(ownedDocument("slot-1").append("late", 0L).append("changes", "seven"));
        protocol.slots().insertOne(ownedDocument("slot-2").append("late", "4s"));
        Document noChanges = ownedDocument("slot-3");
        noChanges.remove("changes");
        protocol.slots().insertOne(noChanges);

        List<SlotView> read = protocol.store().readAll();
        assertEquals(Duration.ofSeconds(4), read.get(0).lateMark());
        assertEquals(7, read.get(0).changes());
        assertNull(read.get(1).lateMark(), "a zero mark is no mark: nobody may take the slot over early by it");
        assertEquals(0, read.get(1).changes());
        assertNull(read.get(2).lateMark());
        assertEquals(0, read.get(3).changes());
    }

    @Test
    void aDrainRequestIsReadOnlyWhenItNamesAnInstance() {
        protocol.slots()
                .insertOne(
                        ownedDocument("slot-0").append("drain", new Document("instance", "i-1").append("force", true)));
        protocol.slots().insertOne(ownedDocument("slot-1").append("drain", new Document("instance", "i-1")));
        protocol.slots().insertOne(ownedDocument("slot-2").append("drain", new Document("force", true)));
        protocol.slots().insertOne(ownedDocument("slot-3").append("drain", "i-1"));

        List<SlotView> read = protocol.store().readAll();
        assertEquals(
                List.of("slot-0", "slot-1", "slot-2", "slot-3"),
                read.stream().map(SlotView::id).toList(),
                "a malformed request leaves the slot itself readable");
        assertEquals(new SlotView.Drain("i-1", true), read.get(0).drain());
        assertEquals(new SlotView.Drain("i-1", false), read.get(1).drain());
        assertNull(read.get(2).drain());
        assertNull(read.get(3).drain());
    }

    @Test
    void aSlotThatIsNotThereReadsAsEmpty() {
        protocol.slots().insertOne(SlotRules.unowned("slot-0"));

        assertEquals(Optional.empty(), protocol.store().read("slot-1"));
        assertTrue(protocol.store().read("slot-0").orElseThrow().released());
    }

    @Test
    void aForcedReleaseReportsNoMatchForAFreeSlotOrAVersionThatMovedOn() {
        protocol.init(2);
        SlotView free = protocol.store().read("slot-0").orElseThrow();
        assertFalse(protocol.store().revoke(free), "nobody owns it: nothing to revoke");
        assertEquals(0, protocol.store().read("slot-0").orElseThrow().epoch(), "and nothing written");

        assertTrue(protocol.store().claim(protocol.store().read("slot-1").orElseThrow(), owner(A, "i-1")));
        SlotView owned = protocol.store().read("slot-1").orElseThrow();
        assertTrue(protocol.store().revoke(owned));
        SlotView revoked = protocol.store().read("slot-1").orElseThrow();
        assertNull(revoked.owner());
        assertEquals(2, revoked.epoch());
        assertEquals(owned.time(), revoked.time(), "standbys still wait out the former owner's lease");
        assertFalse(protocol.store().revoke(owned), "the version seen is gone");
        assertEquals(2, protocol.store().read("slot-1").orElseThrow().epoch());
    }

    @Test
    void aClaimFromAGoneOwnerNeedsAnOwnerAnInstanceAndAMarkInTheVersionSeen() {
        protocol.init(1);
        SlotStore.Ownership a = new SlotStore.Ownership(A, "i-1", LEASE, Duration.ofSeconds(3));
        assertTrue(protocol.store().claim(protocol.store().read("slot-0").orElseThrow(), a));
        protocol.slots()
                .updateOne(
                        Filters.eq("_id", "slot-0"),
                        Updates.set("time", Date.from(Instant.now().minusSeconds(4))));
        SlotView late = protocol.store().read("slot-0").orElseThrow();
        assertTrue(late.isLate());
        SlotStore.Ownership b =
                new SlotStore.Ownership(new NodeId("127.0.0.1", 7002), "i-2", LEASE, Duration.ofSeconds(3));

        SlotView noInstance = SlotView.of(
                        late.id(), late.owner(), null, late.time(), late.lease(), late.epoch(), late.age())
                .withChanges(late.changes())
                .withLateMark(late.lateMark());
        assertFalse(
                protocol.store().claimFromGone(noInstance, b),
                "a view without the owner's instance proves nobody gone");
        SlotView noMark = SlotView.of(
                        late.id(), late.owner(), late.instance(), late.time(), late.lease(), late.epoch(), late.age())
                .withChanges(late.changes());
        assertFalse(
                protocol.store().claimFromGone(noMark, b),
                "a view without the owner's mark: its owner may not have paused");
        assertEquals("i-1", protocol.store().read("slot-0").orElseThrow().instance());

        assertTrue(protocol.store().claimFromGone(late, b));
        assertEquals("i-2", protocol.store().read("slot-0").orElseThrow().instance());
    }

    @Test
    void aSlotIsCreatedOnceAndATouchRaisesOnlyItsChangeCount() {
        assertTrue(protocol.store().create("slot-0"));
        assertFalse(protocol.store().create("slot-0"), "it exists");
        assertTrue(protocol.store().claim(protocol.store().read("slot-0").orElseThrow(), owner(A, "i-1")));
        SlotView before = protocol.store().read("slot-0").orElseThrow();

        protocol.store().touch("slot-0");
        protocol.store().touch("slot-0");

        SlotView after = protocol.store().read("slot-0").orElseThrow();
        assertEquals(before.changes() + 2, after.changes());
        assertEquals(
                List.of(before.owner(), before.instance(), before.epoch(), before.time()),
                List.of(after.owner(), after.instance(), after.epoch(), after.time()));
        assertTrue(protocol.store().renew("slot-0", 1, owner(A, "i-1")), "a touch is no new version of the lease");
    }
}
