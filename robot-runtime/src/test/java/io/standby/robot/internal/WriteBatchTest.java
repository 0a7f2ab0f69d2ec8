package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotFields;
import io.standby.robot.model.RobotToken;
import io.standby.testing.FaultyBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One batch against the embedded server: merged per robot, token and kind; a write is acknowledged only when the store
 * shows it landed under its token, rejected when its token is gone, and neither when its outcome is unknown; one
 * refused write never fails the others.
 */
class WriteBatchTest {

    private final FaultyBackend backend = new FaultyBackend();
    private final StoredRobots robots = new StoredRobots(backend);
    private final List<List<RobotWrite>> bulks = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        robots.close();
    }

    /** The real store, recording each bulk it is given. */
    private final RobotStore recording = new ForwardingRobotStore(robots.store) {
        @Override
        public int write(List<RobotWrite> writes) {
            bulks.add(List.copyOf(writes));
            return super.write(writes);
        }
    };

    private static WriteBatch.Pending pending(RobotWrite write) {
        return new WriteBatch.Pending(write, new CompletableFuture<>());
    }

    private static void send(RobotStore store, WriteBatch.Pending... batch) {
        WriteBatch.send(store, List.of(batch));
    }

    private static Throwable failureOf(WriteBatch.Pending p) {
        assertTrue(p.done().isDone(), "settled when the batch was sent");
        return assertThrows(ExecutionException.class, () -> p.done().get()).getCause();
    }

    private static boolean outcome(WriteBatch.Pending p) throws Exception {
        assertTrue(p.done().isDone(), "settled when the batch was sent");
        return p.done().get();
    }

    private Document context(String id) {
        return robots.doc(id).get(RobotFields.CONTEXT, Document.class);
    }

    @Test
    void writesOfOneRobotTokenAndKindAreMergedIntoOneLatestValueAndHighestSequenceWins() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        WriteBatch.Pending a = pending(RobotWrite.checkpoint(r1, 1, new Document("count", 1)));
        WriteBatch.Pending s = pending(RobotWrite.status(r1, 2, new Document("state", "RUNNING")));
        WriteBatch.Pending b = pending(RobotWrite.checkpoint(r1, 3, new Document("count", 2)));

        send(recording, a, s, b);

        assertTrue(outcome(a) && outcome(s) && outcome(b));
        assertEquals(
                List.of(List.of(
                        RobotWrite.checkpoint(r1, 3, new Document("count", 2)),
                        RobotWrite.status(r1, 2, new Document("state", "RUNNING")))),
                bulks,
                "checkpoints and status are ordered apart");
        assertEquals(new Document("count", 2), context("r1"));
        assertEquals(3L, robots.doc("r1").getLong(RobotFields.SEQ));
    }

    @Test
    void aWriteUnderAStaleTokenIsRejectedAndTheOthersInItsBulkAcknowledged() throws Exception {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        RobotToken stale = robots.token("r1");
        robots.store.fence(StoredRobots.SLOT, StoredRobots.EPOCH + 1, List.of("r1"));
        WriteBatch.Pending fenced = pending(RobotWrite.checkpoint(stale, 1, new Document("count", 1)));
        WriteBatch.Pending fine = pending(RobotWrite.checkpoint(robots.token("r2"), 2, new Document("count", 2)));

        send(robots.store, fenced, fine);

        assertFalse(outcome(fenced));
        assertTrue(outcome(fine));
        assertEquals(new Document(), context("r1"));
    }

    @Test
    void writesOfTwoTokensOfOneRobotAreNotMergedAndOnlyTheCurrentOneLands() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken before = robots.token("r1");
        robots.store.take(StoredRobots.SLOT, StoredRobots.EPOCH, List.of("r1"), StoredRobots.NODE);
        RobotToken now = robots.token("r1");
        WriteBatch.Pending old = pending(RobotWrite.checkpoint(before, 5, new Document("count", 5)));
        WriteBatch.Pending current = pending(RobotWrite.checkpoint(now, 1, new Document("count", 1)));

        send(robots.store, old, current);

        assertFalse(outcome(old), "an earlier run's late write");
        assertTrue(outcome(current));
        assertEquals(new Document("count", 1), context("r1"));
    }

    @Test
    void aWriteOfARemovedRobotIsRejected() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        robots.db.database().getCollection(RobotFields.COLLECTION).deleteOne(new Document(RobotFields.ID, "r1"));
        WriteBatch.Pending gone = pending(RobotWrite.checkpoint(r1, 1, new Document("count", 1)));

        send(robots.store, gone);

        assertFalse(outcome(gone));
    }

    @Test
    void aSecondCopyOfAWriteThatLandedIsAcknowledged() throws Exception {
        robots.add("r1", "counter", new Document());
        RobotToken r1 = robots.token("r1");
        RobotWrite write = RobotWrite.checkpoint(r1, 1, new Document("count", 1));
        send(robots.store, pending(write));
        WriteBatch.Pending copy = pending(write);

        send(robots.store, copy);

        assertTrue(outcome(copy), "it matched nothing, but the document shows it landed");
    }

    @Test
    void aWriteThatMatchedNothingWhileItsTokenHoldsIsNeitherAcknowledgedNorRejected() throws Exception {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        // The wire lost r1's write: the store applied only the others.
        RobotStore losing = new ForwardingRobotStore(robots.store) {
            @Override
            public int write(List<RobotWrite> writes) {
                return super.write(writes.stream()
                        .filter(w -> !w.token().robotId().equals("r1"))
                        .toList());
            }
        };
        WriteBatch.Pending lost = pending(RobotWrite.checkpoint(robots.token("r1"), 1, new Document("count", 1)));
        WriteBatch.Pending fine = pending(RobotWrite.checkpoint(robots.token("r2"), 2, new Document("count", 2)));

        send(losing, lost, fine);

        assertInstanceOf(WriteBatch.Unconfirmed.class, failureOf(lost), "sending it again is safe");
        assertTrue(outcome(fine));
    }

    @Test
    void aBulkNotConfirmedByAMajorityAcknowledgesNoneOfItsWrites() {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        backend.failWriteConcern(RobotFields.COLLECTION, 1);
        WriteBatch.Pending a = pending(RobotWrite.checkpoint(robots.token("r1"), 1, new Document("count", 1)));
        WriteBatch.Pending b = pending(RobotWrite.status(robots.token("r2"), 2, new Document("state", "RUNNING")));

        send(robots.store, a, b);

        assertInstanceOf(
                WriteBatch.Unconfirmed.class, failureOf(a), "applied on the primary, but a failover may roll it back");
        assertInstanceOf(WriteBatch.Unconfirmed.class, failureOf(b));
    }

    @Test
    void aWriteRefusedInABulkFailsAloneAndTheOthersAreSettledByReadingBack() throws Exception {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        robots.add("r3", "counter", new Document());
        RobotToken stale = robots.token("r3");
        robots.store.fence(StoredRobots.SLOT, StoredRobots.EPOCH + 1, List.of("r3"));
        // The database refused the first write of the bulk and applied the others.
        RobotStore refusing = new ForwardingRobotStore(robots.store) {
            @Override
            public int write(List<RobotWrite> writes) {
                super.write(writes.subList(1, writes.size()));
                throw new BulkFailure(Map.of(0, "document too large"), false, "1 write error");
            }
        };
        WriteBatch.Pending refused = pending(RobotWrite.checkpoint(robots.token("r1"), 1, new Document("count", 1)));
        WriteBatch.Pending fine = pending(RobotWrite.checkpoint(robots.token("r2"), 2, new Document("count", 2)));
        WriteBatch.Pending fenced = pending(RobotWrite.checkpoint(stale, 3, new Document("count", 3)));

        send(refusing, refused, fine, fenced);

        Throwable why = failureOf(refused);
        assertInstanceOf(IllegalArgumentException.class, why, "refused for good: not to be retried");
        assertTrue(why.getMessage().contains("document too large"), why.getMessage());
        assertTrue(outcome(fine));
        assertFalse(outcome(fenced));
    }

    @Test
    void aRefusedWriteInABulkThatWasAlsoUnconfirmedLeavesTheOthersUnconfirmed() {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        RobotStore refusing = new ForwardingRobotStore(robots.store) {
            @Override
            public int write(List<RobotWrite> writes) {
                super.write(writes.subList(1, writes.size()));
                throw new BulkFailure(Map.of(0, "document too large"), true, "1 write error, and no majority");
            }
        };
        WriteBatch.Pending refused = pending(RobotWrite.checkpoint(robots.token("r1"), 1, new Document("count", 1)));
        WriteBatch.Pending unconfirmed =
                pending(RobotWrite.checkpoint(robots.token("r2"), 2, new Document("count", 2)));

        send(refusing, refused, unconfirmed);

        assertInstanceOf(IllegalArgumentException.class, failureOf(refused));
        assertInstanceOf(
                WriteBatch.Unconfirmed.class, failureOf(unconfirmed), "landed on the primary only: not acknowledged");
    }

    @Test
    void aWriteTheDriverCannotSendIsRefusedAloneAndTheOthersAreSentWithoutIt() throws Exception {
        robots.add("r1", "counter", new Document());
        robots.add("r2", "counter", new Document());
        List<Integer> sizes = new ArrayList<>();
        RobotStore unsendable = new ForwardingRobotStore(robots.store) {
            @Override
            public int write(List<RobotWrite> writes) {
                sizes.add(writes.size());
                if (writes.stream().anyMatch(w -> w.token().robotId().equals("r1"))) {
                    throw new IllegalArgumentException("payload too large");
                }
                return super.write(writes);
            }
        };
        WriteBatch.Pending tooLarge = pending(RobotWrite.checkpoint(robots.token("r1"), 1, new Document("count", 1)));
        WriteBatch.Pending fine = pending(RobotWrite.checkpoint(robots.token("r2"), 2, new Document("count", 2)));

        send(unsendable, tooLarge, fine);

        Throwable why = failureOf(tooLarge);
        assertInstanceOf(IllegalArgumentException.class, why);
        assertTrue(why.getMessage().contains("payload too large"), why.getMessage());
        assertTrue(outcome(fine), "one unsendable write must not hold back the other robots");
        assertEquals(new Document("count", 2), context("r2"));
        assertEquals(List.of(2, 1, 1), sizes, "the bulk, then each write alone");
    }
}
