package io.standby.robot.internal;

import com.mongodb.MongoClientSettings;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * MongoDB's matching and update semantics, in process, for exactly the operators the stores' rules ({@code SlotRules},
 * {@code RobotRules}, {@code RobotToken}, {@code RobotWrite}) send, so that the simulation applies the very documents
 * the Mongo stores send. {@code $$NOW} and {@code $currentDate} are the time the caller supplies (the simulated
 * server's clock).
 *
 * <p>Supported, with MongoDB's semantics, and checked against the embedded server by {@code BsonEvalTest}:
 *
 * <ul>
 *   <li>filters: a field's value (equality), {@code $and}, {@code $eq}, {@code $ne}, {@code $in}, {@code $nin},
 *       {@code $lt}, {@code $lte}, {@code $gt}, {@code $gte}, {@code $exists}, and {@code $expr} with {@code $lt},
 *       {@code $lte}, {@code $gt}, {@code $gte}, {@code $eq}, {@code $ne} over {@code $add}, {@code "$field"},
 *       {@code "$$NOW"} and constants;
 *   <li>a missing field equals {@code null} ({@code {f: null}}, {@code $in: [null, x]} match it, and {@code $ne: null},
 *       {@code $nin: [null]} do not); numbers compare by value across int32, int64 and double;
 *   <li>query comparisons ({@code $lt} and the like) match only values of the same type class (numbers, strings, dates,
 *       booleans), as MongoDB's type bracketing does, so a missing field matches none;
 *   <li>{@code $expr} comparisons follow the full BSON order, null below numbers below strings below documents below
 *       booleans below dates, and {@code $add} of a missing field is null: this is why {@code time + late < $$NOW}
 *       holds for a slot without a late mark unless the filter says {@code late > 0} too;
 *   <li>updates: {@code $set}, {@code $unset}, {@code $inc} (int32 stays int32 unless it overflows, int64 or double
 *       win) and {@code $currentDate} (as a date).
 * </ul>
 *
 * Top-level fields only: a dotted path, an array in a document, any other operator or expression, and any other type in
 * a comparison fail loudly with an {@link IllegalArgumentException} naming it, so that a new rule cannot be silently
 * misread here.
 *
 * <p>Documents are values: {@link #apply} returns a new top-level document and never changes the one it is given, so
 * the simulation's committed copies can share them.
 */
final class BsonEval {

    private BsonEval() {}

    /**
     * The document the driver would send for {@code bson}: a {@link BsonDocument} as it is, anything else encoded once.
     */
    static BsonDocument bson(Bson bson) {
        return bson instanceof BsonDocument document
                ? document
                : bson.toBsonDocument(Document.class, MongoClientSettings.getDefaultCodecRegistry());
    }

    /** Whether {@code doc} matches {@code filter} at the server time {@code nowMs}. */
    static boolean matches(Bson filter, BsonDocument doc, long nowMs) {
        return matches(bson(filter), doc, nowMs);
    }

    static boolean matches(BsonDocument filter, BsonDocument doc, long nowMs) {
        for (Map.Entry<String, BsonValue> clause : filter.entrySet()) {
            String key = clause.getKey();
            BsonValue value = clause.getValue();
            boolean holds = switch (key) {
                case "$and" -> all(value.asArray(), doc, nowMs);
                case "$or" -> any(value.asArray(), doc, nowMs);
                case "$expr" -> truthy(expression(value, doc, nowMs));
                default -> {
                    if (key.startsWith("$")) {
                        throw new IllegalArgumentException("unsupported filter operator " + key);
                    }
                    yield field(key, value, doc);
                }
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    private static boolean any(BsonArray filters, BsonDocument doc, long nowMs) {
        for (BsonValue filter : filters) {
            if (matches(filter.asDocument(), doc, nowMs)) {
                return true;
            }
        }
        return false;
    }

    private static boolean all(BsonArray filters, BsonDocument doc, long nowMs) {
        for (BsonValue filter : filters) {
            if (!matches(filter.asDocument(), doc, nowMs)) {
                return false;
            }
        }
        return true;
    }

    private static boolean field(String name, BsonValue condition, BsonDocument doc) {
        BsonValue actual = get(doc, name);
        if (!(condition instanceof BsonDocument operators)
                || operators.isEmpty()
                || !operators.getFirstKey().startsWith("$")) {
            return equal(actual, condition);
        }
        for (Map.Entry<String, BsonValue> operator : operators.entrySet()) {
            BsonValue operand = operator.getValue();
            boolean holds = switch (operator.getKey()) {
                case "$eq" -> equal(actual, operand);
                case "$ne" -> !equal(actual, operand);
                case "$in" -> in(actual, operand.asArray());
                case "$nin" -> !in(actual, operand.asArray());
                case "$lt", "$lte", "$gt", "$gte" -> bracketed(actual, operand, operator.getKey());
                case "$exists" -> (actual != null) == operand.asBoolean().getValue();
                default ->
                    throw new IllegalArgumentException(
                            "unsupported query operator " + operator.getKey() + " on " + name);
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    /** A top-level field, or null when missing (BsonNull when stored as null). */
    private static BsonValue get(BsonDocument doc, String name) {
        if (name.indexOf('.') >= 0) {
            throw new IllegalArgumentException("unsupported dotted path " + name);
        }
        BsonValue value = doc.get(name);
        if (value instanceof BsonArray) {
            throw new IllegalArgumentException("unsupported array value in field " + name);
        }
        return value;
    }

    /** Query equality: null matches missing and null; numbers by value; documents field by field. */
    private static boolean equal(BsonValue actual, BsonValue expected) {
        if (expected.isNull()) {
            return actual == null || actual.isNull();
        }
        if (expected instanceof BsonArray) {
            throw new IllegalArgumentException("unsupported equality with an array");
        }
        if (actual == null || actual.isNull()) {
            return false;
        }
        if (actual.isNumber() && expected.isNumber()) {
            return compareNumbers(actual, expected) == 0;
        }
        return actual.equals(expected);
    }

    private static boolean in(BsonValue actual, BsonArray candidates) {
        for (BsonValue candidate : candidates) {
            if (equal(actual, candidate)) {
                return true;
            }
        }
        return false;
    }

    /** A query comparison: only within one type class; a missing field or another class matches nothing. */
    private static boolean bracketed(BsonValue actual, BsonValue operand, String operator) {
        if (operand.isNull()) {
            throw new IllegalArgumentException("unsupported " + operator + " with null");
        }
        if (actual == null || actual.isNull() || typeClass(actual, operator) != typeClass(operand, operator)) {
            return false;
        }
        int c = compare(actual, operand, operator);
        return switch (operator) {
            case "$lt" -> c < 0;
            case "$lte" -> c <= 0;
            case "$gt" -> c > 0;
            default -> c >= 0;
        };
    }

    private static boolean truthy(BsonValue value) {
        if (value == null || value.isNull()) {
            return false;
        }
        if (value.isBoolean()) {
            return value.asBoolean().getValue();
        }
        if (value.isNumber()) {
            return value.asNumber().doubleValue() != 0;
        }
        return true;
    }

    /** An aggregation expression; null stands for missing. */
    private static BsonValue expression(BsonValue expression, BsonDocument doc, long nowMs) {
        if (expression.isString()) {
            String text = expression.asString().getValue();
            if (text.equals("$$NOW")) {
                return new BsonDateTime(nowMs);
            }
            if (text.startsWith("$$")) {
                throw new IllegalArgumentException("unsupported variable " + text);
            }
            return text.startsWith("$") ? get(doc, text.substring(1)) : expression;
        }
        if (expression instanceof BsonDocument operator) {
            if (operator.size() != 1 || !operator.getFirstKey().startsWith("$")) {
                throw new IllegalArgumentException("unsupported expression " + operator.toJson());
            }
            String name = operator.getFirstKey();
            BsonArray args = operator.get(name).isArray()
                    ? operator.get(name).asArray()
                    : new BsonArray(java.util.List.of(operator.get(name)));
            return switch (name) {
                case "$add" -> add(args, doc, nowMs);
                case "$lt", "$lte", "$gt", "$gte", "$eq", "$ne" -> {
                    if (args.size() != 2) {
                        throw new IllegalArgumentException(name + " takes two arguments");
                    }
                    int c = ordered(expression(args.get(0), doc, nowMs), expression(args.get(1), doc, nowMs), name);
                    yield BsonBoolean.valueOf(
                            switch (name) {
                                case "$lt" -> c < 0;
                                case "$lte" -> c <= 0;
                                case "$gt" -> c > 0;
                                case "$gte" -> c >= 0;
                                case "$eq" -> c == 0;
                                default -> c != 0;
                            });
                }
                default -> throw new IllegalArgumentException("unsupported expression operator " + name);
            };
        }
        if (expression instanceof BsonArray) {
            throw new IllegalArgumentException("unsupported array literal in an expression");
        }
        return expression;
    }

    /** {@code $add}: numbers, plus at most one date (a date then); null when any argument is missing or null. */
    private static BsonValue add(BsonArray args, BsonDocument doc, long nowMs) {
        long millis = 0;
        double doubles = 0;
        boolean isDouble = false;
        boolean isLong = false;
        boolean isDate = false;
        for (BsonValue arg : args) {
            BsonValue value = expression(arg, doc, nowMs);
            if (value == null || value.isNull()) {
                return BsonNull.VALUE;
            }
            if (value.isDateTime()) {
                if (isDate) {
                    throw new IllegalArgumentException("$add: only one date allowed");
                }
                isDate = true;
                millis += value.asDateTime().getValue();
            } else if (value.isDouble()) {
                isDouble = true;
                doubles += value.asDouble().getValue();
            } else if (value.isInt64() || value.isInt32()) {
                isLong |= value.isInt64();
                millis += value.asNumber().longValue();
            } else {
                throw new IllegalArgumentException("unsupported $add of " + value.getBsonType());
            }
        }
        if (isDate) {
            return new BsonDateTime(millis + Math.round(doubles));
        }
        if (isDouble) {
            return new BsonDouble(millis + doubles);
        }
        return isLong || millis != (int) millis ? new BsonInt64(millis) : new BsonInt32((int) millis);
    }

    /** The BSON order across types (missing as null), as aggregation comparisons use. */
    private static int ordered(BsonValue a, BsonValue b, String operator) {
        int ca = a == null || a.isNull() ? 0 : typeClass(a, operator);
        int cb = b == null || b.isNull() ? 0 : typeClass(b, operator);
        if (ca != cb) {
            return Integer.compare(ca, cb);
        }
        return ca == 0 ? 0 : compare(a, b, operator);
    }

    /** The canonical type order of BSON, for the types the rules hold. */
    private static int typeClass(BsonValue value, String operator) {
        return switch (value.getBsonType()) {
            case NULL -> 0;
            case INT32, INT64, DOUBLE -> 1;
            case STRING -> 2;
            case DOCUMENT -> 3;
            case BOOLEAN -> 5;
            case DATE_TIME -> 6;
            default -> throw new IllegalArgumentException("unsupported " + operator + " on " + value.getBsonType());
        };
    }

    /** Two values of one type class. */
    private static int compare(BsonValue a, BsonValue b, String operator) {
        return switch (a.getBsonType()) {
            case INT32, INT64, DOUBLE -> compareNumbers(a, b);
            case STRING -> a.asString().getValue().compareTo(b.asString().getValue());
            case BOOLEAN ->
                Boolean.compare(a.asBoolean().getValue(), b.asBoolean().getValue());
            case DATE_TIME ->
                Long.compare(a.asDateTime().getValue(), b.asDateTime().getValue());
            default -> throw new IllegalArgumentException("unsupported " + operator + " on " + a.getBsonType());
        };
    }

    private static int compareNumbers(BsonValue a, BsonValue b) {
        if (a.isDouble() || b.isDouble()) {
            return Double.compare(a.asNumber().doubleValue(), b.asNumber().doubleValue());
        }
        return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
    }

    private static final java.util.Set<String> UPDATE_OPERATORS =
            java.util.Set.of("$set", "$unset", "$inc", "$max", "$currentDate");

    /** {@code doc} after {@code update}, as a new document; {@code doc} itself is left as it was. */
    static BsonDocument apply(Bson update, BsonDocument doc, long nowMs) {
        return apply(bson(update), doc, nowMs);
    }

    static BsonDocument apply(BsonDocument update, BsonDocument doc, long nowMs) {
        BsonDocument result = new BsonDocument();
        result.putAll(doc);
        java.util.Set<String> written = new java.util.HashSet<>();
        for (Map.Entry<String, BsonValue> operator : update.entrySet()) {
            if (!UPDATE_OPERATORS.contains(operator.getKey())) {
                throw new IllegalArgumentException("unsupported update operator " + operator.getKey()
                        + (operator.getKey().startsWith("$") ? "" : " (a replacement document)"));
            }
            BsonDocument fields = operator.getValue().asDocument();
            for (Map.Entry<String, BsonValue> field : fields.entrySet()) {
                String name = field.getKey();
                if (name.indexOf('.') >= 0 || name.startsWith("$")) {
                    throw new IllegalArgumentException("unsupported update path " + name + " in " + operator.getKey());
                }
                if (!written.add(name)) {
                    // MongoDB refuses it: "Updating the path 'name' would create a conflict".
                    throw new IllegalArgumentException("two update operators on " + name);
                }
                if (name.equals("_id")) {
                    throw new IllegalArgumentException(operator.getKey() + " would change _id");
                }
                BsonValue value = field.getValue();
                switch (operator.getKey()) {
                    case "$set" -> result.put(name, value);
                    case "$unset" -> result.remove(name);
                    case "$inc" -> result.put(name, inc(result.get(name), value, name));
                    case "$max" -> result.put(name, max(result.get(name), value, name));
                    case "$currentDate" -> {
                        if (!(value.isBoolean() && value.asBoolean().getValue()
                                || value.isDocument()
                                        && new BsonDocument("$type", new org.bson.BsonString("date")).equals(value))) {
                            throw new IllegalArgumentException("unsupported $currentDate " + value + " on " + name);
                        }
                        result.put(name, new BsonDateTime(nowMs));
                    }
                    default ->
                        throw new IllegalArgumentException("unsupported update operator " + operator.getKey()
                                + (operator.getKey().startsWith("$") ? "" : " (a replacement document)"));
                }
            }
        }
        return result;
    }

    /** {@code $max} between numbers (all this project writes with it); a missing field takes the value. */
    private static BsonValue max(BsonValue current, BsonValue value, String name) {
        if (!value.isNumber() || current != null && !current.isNumber()) {
            throw new IllegalArgumentException("unsupported $max of " + value + " over " + current + " on " + name);
        }
        return current == null || compareNumbers(value, current) > 0 ? value : current;
    }

    private static BsonValue inc(BsonValue current, BsonValue by, String name) {
        if (!by.isNumber()) {
            throw new IllegalArgumentException("$inc by a non-number on " + name);
        }
        if (current == null) {
            return by;
        }
        if (!current.isNumber()) {
            // MongoDB refuses the write: "Cannot apply $inc to a value of non-numeric type".
            throw new IllegalStateException("$inc on a non-number in " + name + ": " + current);
        }
        if (current.isDouble() || by.isDouble()) {
            return new BsonDouble(
                    current.asNumber().doubleValue() + by.asNumber().doubleValue());
        }
        long sum = Math.addExact(current.asNumber().longValue(), by.asNumber().longValue());
        return current.isInt64() || by.isInt64() || sum != (int) sum ? new BsonInt64(sum) : new BsonInt32((int) sum);
    }
}
