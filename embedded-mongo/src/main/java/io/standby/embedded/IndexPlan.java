package io.standby.embedded;

import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.MaxKey;
import de.bwaldvogel.mongo.bson.MinKey;
import de.bwaldvogel.mongo.bson.ObjectId;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which documents a filter can match, from the {@link OrderedIndex}es, as MongoDB's planner narrows a query to index
 * bounds: a superset of the matches (the server's own matcher then checks the whole filter on each), or null if the
 * filter needs a scan. The poll's filter is an {@code $or} of three branches, {@code {ip: null, $or: [buckets]}},
 * {@code {ip, port}} and {@code {time: {$gt, $lt}, ip: {$ne: null}}}: each is a range of the {@code ip_port} or the
 * {@code time} index, so a poll reads the documents of its branches, not every slot.
 *
 * <p>What it answers: within a conjunction (a filter document, or an {@code $and}), the conditions on an index's
 * fields: equality to a plain value (null included: it finds the documents without the field, indexed as null),
 * {@code $eq}, an {@code $in} of plain values, and {@code $gt}/{@code $gte}/{@code $lt}/{@code $lte} on the first
 * field; equalities on several leading fields of a compound index narrow it further. An {@code $or} is answered if each
 * branch is, as the union. Everything else ({@code $expr}, {@code $ne}, {@code $not}, {@code $nor}, regular
 * expressions, documents and arrays as values) is left to the matcher; a conjunction with nothing answerable scans. Of
 * several answers in one conjunction the smallest is taken: every one holds all the matches.
 *
 * <p>Why a range under the server's value order holds every match: the matcher compares like values (with MongoDB's
 * type bracketing) by that very order, so a value it takes for {@code $gt a} sorts above {@code a}; values of other
 * types, which it would not take, are at most read in vain.
 */
final class IndexPlan {

    private static final ValueComparator ORDER = ValueComparator.ascWithoutListHandling();

    private final List<OrderedIndex> indexes;
    /** The {@code _id} index; null if the collection has none in order. */
    private final OrderedIdIndex byId;

    IndexPlan(List<OrderedIndex> indexes, OrderedIdIndex byId) {
        this.indexes = indexes.stream().filter(OrderedIndex::usable).toList();
        this.byId = byId;
    }

    /** The positions that hold every document {@code filter} matches; null if only a scan finds them. */
    BitSet candidates(Document filter) {
        return conjunction(filter);
    }

    private BitSet conjunction(Document filter) {
        BitSet best = null;
        for (Map.Entry<String, Object> condition : filter.entrySet()) {
            BitSet found = switch (condition.getKey()) {
                case "$or" -> union(condition.getValue());
                case "$and" -> smallestOf(condition.getValue());
                default -> null;
            };
            best = smaller(best, found);
        }
        for (OrderedIndex index : indexes) {
            best = smaller(best, onIndex(index, filter));
        }
        return smaller(best, onId(filter));
    }

    /**
     * An equality or {@code $in} on {@code _id} of strings or object ids (the ids the unique index keys by value), or a
     * range of ids.
     */
    private BitSet onId(Document filter) {
        Bounds bounds = Bounds.of(filter.get("_id"), filter.containsKey("_id"));
        if (byId == null || bounds == null) {
            return null;
        }
        BitSet found = new BitSet();
        if (bounds.values == null) {
            byId.range(bounds.from, bounds.fromInclusive, bounds.to, bounds.toInclusive, found);
            return found;
        }
        if (!bounds.values.stream().allMatch(v -> v instanceof String || v instanceof ObjectId)) {
            return null;
        }
        for (Object id : bounds.values) {
            byId.positionsOf(id).forEach(found::set);
        }
        return found;
    }

    private BitSet union(Object branches) {
        if (!(branches instanceof Collection<?> list) || list.isEmpty()) {
            return null;
        }
        BitSet all = new BitSet();
        for (Object branch : list) {
            BitSet found = branch instanceof Document d ? conjunction(d) : null;
            if (found == null) {
                return null;
            }
            all.or(found);
        }
        return all;
    }

    private BitSet smallestOf(Object parts) {
        if (!(parts instanceof Collection<?> list)) {
            return null;
        }
        BitSet best = null;
        for (Object part : list) {
            best = smaller(best, part instanceof Document d ? conjunction(d) : null);
        }
        return best;
    }

    private static BitSet smaller(BitSet a, BitSet b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return b.cardinality() < a.cardinality() ? b : a;
    }

    /**
     * The look-up on {@code index} for the conditions of {@code filter} on its fields: single equalities on its leading
     * fields form a prefix; the next field may add an {@code $in} or a range. Null if its first field has no such
     * condition.
     */
    private static BitSet onIndex(OrderedIndex index, Document filter) {
        List<String> fields = index.fields();
        List<Object> prefix = new ArrayList<>();
        for (String field : fields) {
            Bounds bounds = Bounds.of(filter.get(field), filter.containsKey(field));
            if (bounds == null) {
                break;
            }
            if (bounds.values != null && bounds.values.size() == 1) {
                prefix.add(bounds.values.getFirst());
                continue;
            }
            BitSet found = new BitSet();
            Object[] head = prefix.toArray();
            if (bounds.values != null) {
                for (Object value : bounds.values) {
                    Object[] key = with(head, value);
                    index.positions(key, true, OrderedIndex.upTo(key), true, found);
                }
            } else {
                Object[] from = bounds.from == null
                        ? (head.length == 0 ? null : head)
                        : bounds.fromInclusive ? with(head, bounds.from) : OrderedIndex.upTo(with(head, bounds.from));
                Object[] to = bounds.to == null
                        ? (head.length == 0 ? null : OrderedIndex.upTo(head))
                        : bounds.toInclusive ? OrderedIndex.upTo(with(head, bounds.to)) : with(head, bounds.to);
                index.positions(from, true, to, bounds.to == null || bounds.toInclusive, found);
            }
            return found;
        }
        if (prefix.isEmpty()) {
            return null;
        }
        BitSet found = new BitSet();
        Object[] key = prefix.toArray();
        index.positions(key, true, OrderedIndex.upTo(key), true, found);
        return found;
    }

    private static Object[] with(Object[] head, Object value) {
        Object[] key = new Object[head.length + 1];
        System.arraycopy(head, 0, key, 0, head.length);
        key[head.length] = value;
        return key;
    }

    /**
     * What a condition on one field bounds it to: some values ({@code values}), or a range; null if nothing an index
     * can answer. A range's open end is null.
     */
    private record Bounds(List<Object> values, Object from, boolean fromInclusive, Object to, boolean toInclusive) {

        static Bounds of(Object condition, boolean present) {
            if (!present) {
                return null;
            }
            if (isPlain(condition)) {
                return new Bounds(java.util.Arrays.asList(condition), null, false, null, false);
            }
            if (!(condition instanceof Document operators)
                    || operators.isEmpty()
                    || !operators.keySet().stream().allMatch(k -> k.startsWith("$"))) {
                // An embedded document's equality, an array, a regular expression: the matcher's.
                return null;
            }
            Object eq = operators.get("$eq");
            if (operators.containsKey("$eq") && isPlain(eq)) {
                return new Bounds(java.util.Arrays.asList(eq), null, false, null, false);
            }
            if (operators.get("$in") instanceof Collection<?> in && in.stream().allMatch(IndexPlan::isPlain)) {
                return new Bounds(new ArrayList<>(in), null, false, null, false);
            }
            Object from = null;
            boolean fromInclusive = false;
            Object to = null;
            boolean toInclusive = false;
            for (String op : List.of("$gt", "$gte")) {
                Object bound = operators.get(op);
                if (isRangeBound(bound)
                        && (from == null || tighterFrom(bound, op.equals("$gte"), from, fromInclusive))) {
                    from = bound;
                    fromInclusive = op.equals("$gte");
                }
            }
            for (String op : List.of("$lt", "$lte")) {
                Object bound = operators.get(op);
                if (isRangeBound(bound) && (to == null || tighterTo(bound, op.equals("$lte"), to, toInclusive))) {
                    to = bound;
                    toInclusive = op.equals("$lte");
                }
            }
            if (from == null && to == null) {
                return null;
            }
            return new Bounds(null, from, fromInclusive, to, toInclusive);
        }

        private static boolean tighterFrom(Object bound, boolean inclusive, Object from, boolean fromInclusive) {
            int c = ORDER.compare(bound, from);
            return c > 0 || c == 0 && !inclusive && fromInclusive;
        }

        private static boolean tighterTo(Object bound, boolean inclusive, Object to, boolean toInclusive) {
            int c = ORDER.compare(bound, to);
            return c < 0 || c == 0 && !inclusive && toInclusive;
        }
    }

    /**
     * A value an equality finds by the index: null, a string, a number, a date, a boolean, an id. Not a document, an
     * array (each matches through elements and by whole), a regular expression, MinKey or MaxKey.
     */
    private static boolean isPlain(Object value) {
        return !(value instanceof Document
                || value instanceof Collection<?>
                || value instanceof Object[]
                || value instanceof Pattern
                || value instanceof BsonRegularExpression
                || value instanceof MinKey
                || value instanceof MaxKey
                || value instanceof Map<?, ?>);
    }

    /** A range's bound: a plain value but null (what {@code $lt: null} matches is the matcher's business). */
    private static boolean isRangeBound(Object value) {
        return value != null && isPlain(value) && !(value instanceof Boolean);
    }
}
