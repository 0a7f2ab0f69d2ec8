package io.standby.robot.internal;

import static io.standby.robot.model.RobotFields.CONTEXT;
import static io.standby.robot.model.RobotFields.SEQ;
import static io.standby.robot.model.RobotFields.STATUS_SEQ;
import static io.standby.robot.model.RobotFields.UPDATED;

import com.mongodb.client.model.Updates;
import io.standby.robot.model.RobotToken;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * One write of a run: a checkpoint (the robot's context) or a status change, under the run's token and with a sequence
 * number from the node's {@link WriteSequence}.
 *
 * <p>The database applies it only while the document carries the token and holds no write of the same kind with this
 * sequence number or a later one. So a late copy of a write (retried on another connection and acknowledged there, then
 * delivered by a dead socket after newer writes) matches nothing, and neither does a second copy of one that landed. A
 * fence restarts both sequences under a new token, whose every earlier write it rejects.
 */
public record RobotWrite(RobotToken token, Kind kind, long seq, Document fields) {

    /** Checkpoints and status changes are ordered separately: each has its own sequence field. */
    public enum Kind {
        CHECKPOINT(SEQ),
        STATUS(STATUS_SEQ);

        final String seqField;

        Kind(String seqField) {
            this.seqField = seqField;
        }
    }

    public static RobotWrite checkpoint(RobotToken token, long seq, Bson context) {
        return new RobotWrite(token, Kind.CHECKPOINT, seq, new Document(CONTEXT, context));
    }

    public static RobotWrite status(RobotToken token, long seq, Document fields) {
        return new RobotWrite(token, Kind.STATUS, seq, fields);
    }

    /** The condition the database checks, as a filter. */
    public Bson filter() {
        return token.filter().append(kind.seqField, new BsonDocument("$lt", new BsonInt64(seq)));
    }

    /** The same condition, on what a document holds: the store contract checks that the two agree. */
    public boolean appliesTo(RobotStore.Stored stored) {
        // A missing sequence field (-1) matches no $lt: only documents a fence prepared take writes.
        return stored != null && stored.token().equals(token) && stored.seq(kind) >= 0 && stored.seq(kind) < seq;
    }

    /**
     * After a write that may or may not have matched: the document shows this write landed (or one of the same kind
     * issued after it, which cannot exist before this one was settled).
     */
    public boolean landedIn(RobotStore.Stored stored) {
        return stored != null && stored.token().equals(token) && stored.seq(kind) >= seq;
    }

    public Bson update() {
        List<Bson> updates = new ArrayList<>();
        fields.forEach((field, value) -> updates.add(Updates.set(field, value)));
        updates.add(Updates.set(kind.seqField, seq));
        updates.add(Updates.currentDate(UPDATED));
        return Updates.combine(updates);
    }

    /** Writes of one kind under one token, queued together, as one: later fields and the last sequence win. */
    static RobotWrite merge(List<RobotWrite> writes) {
        RobotWrite first = writes.getFirst();
        Document fields = new Document();
        long seq = first.seq();
        for (RobotWrite write : writes) {
            fields.putAll(write.fields());
            seq = Math.max(seq, write.seq());
        }
        return new RobotWrite(first.token(), first.kind(), seq, fields);
    }
}
