package io.standby.robot.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.model.RobotToken;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * A run's write judged on what a robot document holds: whether it may still apply, and whether it (or a later one of
 * its kind) has landed. The store contract checks that the database agrees with {@link RobotWrite#appliesTo} on a live
 * document; these are the edges of the sequences.
 */
class RobotWriteTest {

    private static final RobotToken TOKEN = new RobotToken("r1", "i1", "slot-0", 3, 2);

    private static RobotStore.Stored stored(RobotToken token, long seq, long statusSeq) {
        return new RobotStore.Stored(token, seq, statusSeq);
    }

    @Test
    void aFreshlyFencedDocumentTakesTheFirstWriteOfEachKindButOneWithoutSequencesTakesNone() {
        RobotWrite first = RobotWrite.checkpoint(TOKEN, 1, new Document("count", 1));
        RobotWrite firstStatus = RobotWrite.status(TOKEN, 1, new Document("state", "RUNNING"));

        assertTrue(first.appliesTo(stored(TOKEN, 0, 0)), "a fence restarts the sequences at 0");
        assertTrue(firstStatus.appliesTo(stored(TOKEN, 0, 0)));
        assertFalse(first.appliesTo(stored(TOKEN, -1, 0)), "a missing seq (-1) matches no $lt");
        assertFalse(firstStatus.appliesTo(stored(TOKEN, 0, -1)));
        assertFalse(first.appliesTo(null), "a removed robot takes nothing");
    }

    @Test
    void aWriteAppliesOnlyAfterEarlierOnesOfItsOwnKindAndLandsWhenItsOrALaterSequenceIsStored() {
        RobotWrite checkpoint = RobotWrite.checkpoint(TOKEN, 5, new Document("count", 5));

        assertTrue(checkpoint.appliesTo(stored(TOKEN, 4, 9)), "the status sequence is apart");
        assertFalse(checkpoint.appliesTo(stored(TOKEN, 5, 0)), "a second copy");
        assertFalse(checkpoint.landedIn(stored(TOKEN, 4, 9)));
        assertTrue(checkpoint.landedIn(stored(TOKEN, 5, 0)), "it landed");
        assertTrue(checkpoint.landedIn(stored(TOKEN, 6, 0)), "a later one landed, which was sent after it was settled");
        RobotToken fenced = new RobotToken("r1", "i1", "slot-0", 3, 3);
        assertFalse(checkpoint.landedIn(stored(fenced, 5, 5)), "another token's sequence says nothing about it");
        assertFalse(checkpoint.appliesTo(stored(fenced, 0, 0)));
        assertFalse(checkpoint.landedIn(null));
    }

    @Test
    void writesMergedAsOneKeepTheLastValueOfEachFieldAndTheHighestSequence() {
        RobotWrite merged = RobotWrite.merge(List.of(
                RobotWrite.status(TOKEN, 7, new Document("state", "RUNNING").append("restarts", 1)),
                RobotWrite.status(TOKEN, 9, new Document("state", "STOPPED")),
                RobotWrite.status(TOKEN, 8, new Document("lastError", "boom"))));

        assertEquals(RobotWrite.Kind.STATUS, merged.kind());
        assertEquals(TOKEN, merged.token());
        assertEquals(9, merged.seq());
        assertEquals(
                new Document("state", "STOPPED").append("restarts", 1).append("lastError", "boom"), merged.fields());
    }
}
