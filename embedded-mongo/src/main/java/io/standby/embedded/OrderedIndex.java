package io.standby.embedded;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * A secondary index that is not unique, which mongo-java-server's in-memory backend only pretends to create (it logs
 * "not yet implemented" and keeps an empty one): the positions of the documents under their key values, ordered as the
 * server orders values ({@link ValueComparator}), so that an equality, an {@code $in} or a range on the first keys is a
 * look-up ({@link IndexPlan}). A missing field is indexed as null, as MongoDB does, so that {@code {ip: null}} finds
 * the documents without an {@code ip} too; a sparse index is kept whole all the same (the planner never misses a
 * document that way). An array in a key would make the index multikey, where a range on two bounds may match through
 * two elements; while any document has one, the index answers nothing and the collection scans, as before.
 *
 * <p>The collection keeps it up to date through {@link Index}'s hooks, under its lock; {@link #positions} is asked
 * under that lock too.
 */
final class OrderedIndex extends Index<Integer> {

    /** Above every value: the end of a prefix's range. */
    private static final Object TOP = new Object();

    private static final Comparator<Object> VALUES = ValueComparator.ascWithoutListHandling();
    private static final Comparator<Object[]> KEYS = OrderedIndex::compareKeys;

    private final NavigableMap<Object[], Set<Integer>> entries = new TreeMap<>(KEYS);
    /** Each indexed document's key and position, by {@code _id}: {@link #remove} gets the document only. */
    private final Map<Object, Entry> byId = new HashMap<>();
    /** Documents whose key holds an array: while there are any, the index answers nothing. */
    private int multikey;

    private record Entry(Object[] key, int position, boolean array) {}

    OrderedIndex(String name, List<IndexKey> keys, boolean sparse) {
        super(name, keys, sparse);
    }

    /** The indexed fields, in order. */
    List<String> fields() {
        return keys();
    }

    /** Whether a look-up answers for every document: no key holds an array. */
    synchronized boolean usable() {
        return multikey == 0;
    }

    /**
     * Every position whose key lies from {@code from} to {@code to} (each a prefix of the key: values for the first
     * fields), inclusive or not; a null bound is open. A prefix is below every key it starts, so {@code [a]} to
     * {@code [a]} inclusive is the keys that start with {@code a} only with {@link #upTo}.
     */
    synchronized void positions(Object[] from, boolean fromInclusive, Object[] to, boolean toInclusive, BitSet into) {
        NavigableMap<Object[], Set<Integer>> range;
        if (from == null && to == null) {
            range = entries;
        } else if (from == null) {
            range = entries.headMap(to, toInclusive);
        } else if (to == null) {
            range = entries.tailMap(from, fromInclusive);
        } else if (KEYS.compare(from, to) > 0) {
            return;
        } else {
            range = entries.subMap(from, fromInclusive, to, toInclusive);
        }
        for (Set<Integer> positions : range.values()) {
            positions.forEach(into::set);
        }
    }

    /** The prefix followed by a value above every value: the end of the keys that start with {@code prefix}. */
    static Object[] upTo(Object... prefix) {
        Object[] end = new Object[prefix.length + 1];
        System.arraycopy(prefix, 0, end, 0, prefix.length);
        end[prefix.length] = TOP;
        return end;
    }

    private Object[] keyOf(Document document) {
        List<String> fields = keys();
        Object[] key = new Object[fields.size()];
        for (int i = 0; i < key.length; i++) {
            Object value = Utils.getSubdocumentValueCollectionAware(document, fields.get(i));
            key[i] = value instanceof Missing ? null : value;
        }
        return key;
    }

    private static boolean hasArray(Object[] key) {
        for (Object value : key) {
            if (value instanceof Collection<?> || value instanceof Object[]) {
                return true;
            }
        }
        return false;
    }

    private static int compareKeys(Object[] a, Object[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            int c = compareValues(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.length, b.length);
    }

    private static int compareValues(Object a, Object b) {
        if (a == TOP || b == TOP) {
            return a == b ? 0 : a == TOP ? 1 : -1;
        }
        boolean arrayA = a instanceof Collection<?>;
        boolean arrayB = b instanceof Collection<?>;
        if (arrayA || arrayB) {
            // Kept apart from the look-ups (the index answers nothing while it has one), in a stable order.
            return arrayA && arrayB
                    ? Integer.compare(System.identityHashCode(a), System.identityHashCode(b))
                    : arrayA ? 1 : -1;
        }
        return VALUES.compare(a, b);
    }

    @Override
    public synchronized Integer getPosition(Document document) {
        Entry entry = byId.get(idOf(document));
        return entry == null ? null : entry.position();
    }

    @Override
    public void checkAdd(Document document, MongoCollection<Integer> collection) {
        // Not unique: any document may be added.
    }

    @Override
    public synchronized void add(Document document, Integer position, MongoCollection<Integer> collection) {
        Object id = idOf(document);
        if (byId.containsKey(id)) {
            removeEntry(byId.get(id));
        }
        Object[] key = keyOf(document);
        boolean array = hasArray(key);
        if (array) {
            multikey++;
        }
        entries.computeIfAbsent(key, k -> new HashSet<>()).add(position);
        byId.put(id, new Entry(key, position, array));
    }

    @Override
    public synchronized Integer remove(Document document) {
        Entry entry = byId.remove(idOf(document));
        if (entry == null) {
            return null;
        }
        removeEntry(entry);
        return entry.position();
    }

    private void removeEntry(Entry entry) {
        Set<Integer> positions = entries.get(entry.key());
        if (positions != null) {
            positions.remove(entry.position());
            if (positions.isEmpty()) {
                entries.remove(entry.key());
            }
        }
        if (entry.array()) {
            multikey--;
        }
    }

    private static Object idOf(Document document) {
        // Documents of a collection always have one; _id values compare by equals (as the _id index keys them).
        Object id = document.get("_id");
        return id == null ? new IdentityKey(document) : id;
    }

    /** A document without an {@code _id}, known by its identity. */
    private record IdentityKey(Document document) {
        @Override
        public boolean equals(Object other) {
            return other instanceof IdentityKey k && k.document == document;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(document);
        }
    }

    @Override
    public boolean canHandle(Document query) {
        // The collection plans with it (IndexPlan); the stock query path, which would take it for any query on its
        // first key, must not.
        return false;
    }

    @Override
    public synchronized Iterable<Integer> getPositions(Document query) {
        throw new UnsupportedOperationException("positions come from IndexPlan");
    }

    @Override
    public synchronized long getCount() {
        return byId.size();
    }

    @Override
    public long getDataSize() {
        return 0;
    }

    @Override
    public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Integer> collection) {
        // Not unique: any update may be made.
    }

    @Override
    public synchronized void updateInPlace(
            Document oldDocument, Document newDocument, Integer position, MongoCollection<Integer> collection) {
        Entry old = byId.remove(idOf(oldDocument));
        if (old != null) {
            removeEntry(old);
        }
        add(newDocument, position, collection);
    }

    @Override
    public synchronized void drop() {
        entries.clear();
        byId.clear();
        multikey = 0;
    }
}
