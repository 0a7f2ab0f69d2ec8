package io.standby.slot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoException;
import io.standby.slot.FreshDatabase;
import io.standby.slot.NodeId;
import io.standby.slot.SlotFields;
import io.standby.slot.SlotTable;
import io.standby.slot.SlotView;
import io.standby.slot.StandbyDatabase;
import io.standby.testing.FaultyBackend;
import io.standby.testing.TestDatabase;
import io.standby.testing.TestMongo;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A renewal writes its owner document's beat before the slots', and renews no slot when that write fails: the beat
 * claim's premise is that no slot carries a beat its owner document did not carry first ({@code SlotRules.claimFilter}
 * with a beat). On MongoDB's two collections these are two commands, so a failure between them is possible.
 */
class RenewalOrderTest {

    private static final FaultyBackend backend = new FaultyBackend();
    private static TestMongo.Embedded server;

    @RegisterExtension
    final TestDatabase<StandbyDatabase> database = FreshDatabase.perTest().on(() -> server.uri());

    @BeforeAll
    static void start() {
        server = TestMongo.startEmbedded(backend);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aRenewalWhoseOwnerDocumentWriteFailsRenewsNoSlot() {
        StandbyDatabase db = database.connection();
        MongoSlotStore store = new MongoSlotStore(db);
        new SlotTable(db).init(1);
        SlotStore.Ownership a = new SlotStore.Ownership(new NodeId("127.0.0.1", 7001), "a", Duration.ofSeconds(5));
        assertTrue(store.claim(store.read("slot-0").orElseThrow(), a.withBeat(1)));
        SlotView claimed = store.read("slot-0").orElseThrow();

        backend.failWriteConcern(SlotFields.OWNERS_COLLECTION, 1);
        assertThrows(MongoException.class, () -> store.renewAll(Map.of("slot-0", 1L), a.withBeat(2)));

        SlotView after = store.read("slot-0").orElseThrow();
        assertEquals(1, after.beat(), "the slot still carries the claim's beat");
        assertEquals(claimed.time(), after.time(), "and its heartbeat is the claim's");
        assertEquals(
                java.util.Set.of("slot-0"),
                store.renewAll(Map.of("slot-0", 1L), a.withBeat(3)).renewed(),
                "the next renewal goes through");
        assertEquals(3, store.read("slot-0").orElseThrow().beat());
    }
}
