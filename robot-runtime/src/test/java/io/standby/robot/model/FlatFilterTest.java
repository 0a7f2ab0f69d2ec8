package io.standby.robot.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.model.Filters;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class FlatFilterTest {

    @Test
    void conditionsOnDifferentFieldsBecomeOneDocumentWithNestedAndsUnfolded() {
        assertEquals(
                BsonDocument.parse("{_id: 'a', epoch: {$numberLong: '3'}, seq: {$lt: 5}, node: {$ne: null}}"),
                FlatFilter.and(
                                Filters.and(Filters.eq("_id", "a"), Filters.eq("epoch", 3L)),
                                Filters.lt("seq", 5),
                                Filters.ne("node", null))
                        .toBsonDocument());
    }

    @Test
    void aRepeatedFieldKeepsTheDriversAnd() {
        assertEquals(
                Filters.and(Filters.gt("seq", 1), Filters.lt("seq", 5)).toBsonDocument(),
                FlatFilter.and(Filters.gt("seq", 1), Filters.lt("seq", 5)).toBsonDocument());
    }
}
