package io.standby.embedded;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The aggregation stage {@code $unionWith} for mongo-java-server, which has {@code $lookup} but not this (MongoDB has
 * it from 4.4). A node's poll reads the slots and, in the same command, every owner document of the {@code owners}
 * collection; without the stage, that is two commands a poll. Supported as the poll sends it: one or more
 * {@code $unionWith} stages at the end of the pipeline, each with its own pipeline, their results appended in order. A
 * {@code $unionWith} elsewhere is refused with a message that says so.
 */
public final class UnionWith {

    /** MongoDB's code for a stage it cannot run where it is. */
    static final int BAD_STAGE = 40324;

    private static final String STAGE = "$unionWith";

    private UnionWith() {}

    /** Whether {@code query} is an aggregation with a {@code $unionWith} stage. */
    public static boolean appliesTo(String command, Document query) {
        return command.equals("aggregate")
                && query.get("pipeline") instanceof List<?> pipeline
                && pipeline.stream().anyMatch(stage -> stage instanceof Document d && d.containsKey(STAGE));
    }

    /**
     * Runs {@code query}: its pipeline up to the first {@code $unionWith}, then each union's pipeline on its
     * collection, all through {@code aggregate} (the server's own aggregation, given a query without the stage). The
     * reply is one batch with every document, as the server's own replies are.
     */
    public static Document run(Document query, UnaryOperator<Document> aggregate) {
        List<?> pipeline = (List<?>) query.get("pipeline");
        int first = 0;
        while (!((Document) pipeline.get(first)).containsKey(STAGE)) {
            first++;
        }
        List<Document> unions = new ArrayList<>();
        for (Object stage : pipeline.subList(first, pipeline.size())) {
            if (!(stage instanceof Document d && d.containsKey(STAGE))) {
                throw new MongoServerError(BAD_STAGE, "the embedded server runs $unionWith only at a pipeline's end");
            }
            unions.add(d);
        }
        Document head = whole(query, query.get("aggregate"), pipeline.subList(0, first));
        Document reply = aggregate.apply(head);
        Document cursor = (Document) reply.get("cursor");
        List<Object> batch = new ArrayList<>(batch(cursor));
        for (Document union : unions) {
            Object spec = union.get(STAGE);
            String collection;
            List<?> inner;
            if (spec instanceof String name) {
                collection = name;
                inner = List.of();
            } else if (spec instanceof Document d && d.get("coll") instanceof String name) {
                collection = name;
                inner = d.get("pipeline") instanceof List<?> p ? p : List.of();
            } else {
                throw new MongoServerError(BAD_STAGE, "$unionWith needs a collection: " + spec);
            }
            batch.addAll(batch(
                    (Document) aggregate.apply(whole(query, collection, inner)).get("cursor")));
        }
        cursor.put("firstBatch", batch);
        return reply;
    }

    /** {@code query} on {@code collection} with {@code pipeline}, asking for every document in one batch. */
    private static Document whole(Document query, Object collection, List<?> pipeline) {
        Document copy = new Document();
        copy.putAll(query);
        copy.put("aggregate", collection);
        copy.put("pipeline", new ArrayList<>(pipeline));
        copy.put("cursor", new Document("batchSize", Integer.MAX_VALUE));
        return copy;
    }

    private static List<?> batch(Document cursor) {
        if (cursor == null || !(cursor.get("firstBatch") instanceof List<?> batch)) {
            throw new MongoServerError(BAD_STAGE, "an aggregation answered without a first batch");
        }
        if (cursor.get("id") instanceof Number id && id.longValue() != 0) {
            throw new MongoServerError(BAD_STAGE, "an aggregation under $unionWith left a cursor open");
        }
        return batch;
    }
}
