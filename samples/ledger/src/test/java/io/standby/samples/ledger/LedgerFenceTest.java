package io.standby.samples.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Projections;
import io.standby.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Who may take a ledger's fence, on a real wire-protocol database. */
class LedgerFenceTest {

    private MongoClient client;
    private String db;
    private MongoCollection<Document> fences;

    @BeforeEach
    void setUp(TestInfo test) {
        client = MongoClients.create(TestMongo.uri());
        db = TestMongo.freshDatabase(test.getTestMethod().orElseThrow().getName());
        fences = client.getDatabase(db).getCollection("fences");
    }

    @AfterEach
    void tearDown() {
        client.getDatabase(db).drop();
        client.close();
    }

    private LedgerFence fence(String slot, long epoch) {
        return new LedgerFence(fences, "ledger-1", slot, epoch);
    }

    private Document stored() {
        return fences.find()
                .projection(Projections.include("slot", "epoch", "next"))
                .first();
    }

    @Test
    void aLaterEpochOfTheSameSlotIsNeverOvertakenButAnotherSlotMayTakeTheFence() {
        assertTrue(fence("slot-0", 4).take(10), "no fence yet: created");
        assertEquals(
                new Document("_id", "ledger-1")
                        .append("slot", "slot-0")
                        .append("epoch", 4L)
                        .append("next", 10L),
                stored());

        assertFalse(fence("slot-0", 3).take(1), "an earlier epoch of the same slot");
        assertTrue(fence("slot-0", 4).take(5), "the same run again (a restart at the same epoch)");
        assertEquals(10L, stored().getLong("next"), "next never goes back");
        assertTrue(fence("slot-1", 1).take(12), "another slot: the runtime decides which run is the robot's");
        assertEquals(
                new Document("_id", "ledger-1")
                        .append("slot", "slot-1")
                        .append("epoch", 1L)
                        .append("next", 12L),
                stored());
        assertEquals(1, fences.countDocuments(), "one fence per robot");
    }

    @Test
    void onlyTheHolderAdvances() {
        fence("slot-0", 4).take(1);
        assertTrue(fence("slot-0", 4).advance(41));
        assertFalse(fence("slot-0", 3).advance(81));
        assertFalse(fence("slot-1", 4).advance(81));
        assertTrue(fence("slot-0", 5).take(41));
        assertFalse(fence("slot-0", 4).advance(81), "taken by a later run: no further batch");
        assertEquals(41L, stored().getLong("next"));
    }
}
