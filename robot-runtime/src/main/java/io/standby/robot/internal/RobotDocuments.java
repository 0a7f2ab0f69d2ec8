package io.standby.robot.internal;

import org.bson.Document;
import org.bson.conversions.Bson;

import java.util.List;

/**
 * The robots' documents as an operator's commands read and change them ({@code RobotTable}): plain finds,
 * inserts and conditional updates, every read from the primary with read concern majority and every write
 * acknowledged by a majority. The Mongo store sends them to the server; the simulation evaluates the very
 * same filter and update documents, so that the operator it drives is {@code RobotTable} itself.
 */
public interface RobotDocuments {

    /**
     * The documents {@code filter} matches, in {@code _id} order.
     *
     * @param exclude fields left out of each document (for listings that need neither config nor context)
     * @param limit   at most this many; 0 for all
     */
    List<Document> find(Bson filter, List<String> exclude, int limit);

    /** Inserts a new robot; false if one with its {@code _id} exists. */
    boolean insert(Document robot);

    /** An {@code updateOne} ({@code many} false) or {@code updateMany}: how many documents matched. */
    long update(Bson filter, Bson update, boolean many);

    /** A {@code deleteOne}: whether it deleted. */
    boolean deleteOne(Bson filter);

    /** The operator's hand-over of a robot nobody runs: the runtime's own ({@link RobotStore#handOver}). */
    boolean handOver(RobotRules.HandOver handOver);

    /** How many robots each slot has in each state: documents {@code {_id: {slot, state}, n}}, counted by the database. */
    List<Document> countBySlotAndState();
}
