package io.standby.robot.internal;

import io.standby.robot.model.RobotView;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The robots' documents as an operator's commands read and change them ({@code RobotTable}): plain finds, inserts, and
 * the conditional changes {@link RobotRules} writes; every read from the primary with read concern majority and every
 * write acknowledged by a majority. The Mongo store sends them to the server; the simulation evaluates the very same
 * filter and update documents, so that the operator it drives is {@code RobotTable} itself.
 */
public interface RobotDocuments {

    /**
     * The documents {@code filter} matches, in {@code _id} order.
     *
     * @param exclude fields left out of each document (for listings that need neither config nor context)
     * @param limit at most this many; 0 for all
     */
    List<Document> find(Bson filter, List<String> exclude, int limit);

    /** Inserts a new robot; false if one with its {@code _id} exists. */
    boolean insert(Document robot);

    /** One operator's change, {@link RobotRules}'s: an {@code updateOne}; how many documents matched (0 or 1). */
    long update(RobotRules.Change change);

    /**
     * A forced release's fence of the slot's robots below {@code epoch} ({@link RobotRules#revokeFilter}); how many
     * matched.
     */
    long revoke(String slotId, long epoch);

    /** Deletes this incarnation of a robot if nobody runs it ({@link RobotRules#idleDeleteFilter}): whether it did. */
    boolean deleteIdle(RobotView robot);

    /**
     * Deletes this incarnation of a robot while it is still being added ({@link RobotRules#adding}): an add that lost
     * its id cleans up after itself. Whether it did.
     */
    boolean deleteAdding(String id, String incarnation);

    /** The operator's hand-over of a robot nobody runs: the runtime's own ({@link RobotStore#handOver}). */
    boolean handOver(RobotRules.HandOver handOver);

    /**
     * How many robots each slot has in each state: documents {@code {_id: {slot, state}, n}}, counted by the database.
     */
    List<Document> countBySlotAndState();
}
