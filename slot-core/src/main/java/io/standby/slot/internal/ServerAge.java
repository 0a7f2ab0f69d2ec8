package io.standby.slot.internal;

import com.mongodb.client.model.Filters;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/** Filters on how old a date field is, judged on the server by its own clock ({@code $$NOW}), never the client's. */
public final class ServerAge {

    private ServerAge() {}

    /** Documents whose {@code field} is more than {@code age} before the server's now. */
    public static Bson olderThan(String field, Duration age) {
        return Filters.expr(new Document("$lt", List.of("$" + field, cutoff(age))));
    }

    /** Documents whose {@code field} is at most {@code age} before the server's now. */
    public static Bson notOlderThan(String field, Duration age) {
        return Filters.expr(new Document("$gte", List.of("$" + field, cutoff(age))));
    }

    private static Document cutoff(Duration age) {
        return new Document("$subtract", List.of("$$NOW", age.toMillis()));
    }
}
