package io.standby.robot.model;

import com.mongodb.client.model.Filters;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * Conditions on different fields as one filter document, {@code {_id: "a", epoch: 3}}, instead of the driver's
 * {@code {$and: [{_id: "a"}, {epoch: 3}]}}. Both mean the same to MongoDB, but the embedded server finds a document by
 * {@code _id} only in the first form: with the second it scans every robot, which makes each robot's write cost grow
 * with the number of robots.
 */
public final class FlatFilter {

    private FlatFilter() {}

    /** The conjunction of {@code parts}, flat where no field repeats; otherwise the driver's {@code $and}. */
    public static Bson and(Bson... parts) {
        BsonDocument flat = new BsonDocument();
        for (Bson part : parts) {
            if (!merge(flat, part.toBsonDocument())) {
                return Filters.and(parts);
            }
        }
        return flat;
    }

    private static boolean merge(BsonDocument into, BsonDocument part) {
        for (var entry : part.entrySet()) {
            if (entry.getKey().equals("$and")) {
                for (BsonValue element : entry.getValue().asArray()) {
                    if (!merge(into, element.asDocument())) {
                        return false;
                    }
                }
            } else if (into.containsKey(entry.getKey())) {
                return false;
            } else {
                into.put(entry.getKey(), entry.getValue());
            }
        }
        return true;
    }
}
