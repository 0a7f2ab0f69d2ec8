package io.standby.embedded;

import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.backend.memory.index.MemoryUniqueIndex;
import de.bwaldvogel.mongo.bson.Document;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code _id} index, also in order: the stock one is a hash map, so a range of ids ({@code {_id: {$gte: "owner:",
 * $lt: "owner;"}}}, how a poll sweeps owner documents left among the slots) scanned every document where MongoDB reads
 * an index range. Every node ran that sweep at its first poll: a hundred scans of 10,000 slots as a storm began.
 */
final class OrderedIdIndex extends MemoryUniqueIndex {

    private final NavigableMap<Object, Set<Integer>> sorted = new TreeMap<>(ValueComparator.ascWithoutListHandling());

    OrderedIdIndex(String name, List<IndexKey> keys, boolean sparse) {
        super(name, keys, sparse);
    }

    @Override
    protected synchronized boolean putKeyPosition(KeyValue key, Integer position) {
        boolean added = super.putKeyPosition(key, position);
        if (added) {
            sorted.computeIfAbsent(key.get(0), k -> new HashSet<>()).add(position);
        }
        return added;
    }

    @Override
    protected synchronized Integer removeDocument(KeyValue key) {
        Integer position = super.removeDocument(key);
        if (position != null) {
            Set<Integer> positions = sorted.get(key.get(0));
            if (positions != null) {
                positions.remove(position);
                if (positions.isEmpty()) {
                    sorted.remove(key.get(0));
                }
            }
        }
        return position;
    }

    /** The positions of the document with this id (the stock look-up). */
    Iterable<Integer> positionsOf(Object id) {
        return getPositions(new Document("_id", id));
    }

    /** The positions of the ids from {@code from} to {@code to}, inclusive or not; a null bound is open. */
    synchronized void range(Object from, boolean fromInclusive, Object to, boolean toInclusive, BitSet into) {
        NavigableMap<Object, Set<Integer>> range;
        if (from == null && to == null) {
            range = sorted;
        } else if (from == null) {
            range = sorted.headMap(to, toInclusive);
        } else if (to == null) {
            range = sorted.tailMap(from, fromInclusive);
        } else if (sorted.comparator().compare(from, to) > 0) {
            return;
        } else {
            range = sorted.subMap(from, fromInclusive, to, toInclusive);
        }
        range.values().forEach(positions -> positions.forEach(into::set));
    }

    @Override
    public synchronized void drop() {
        super.drop();
        sorted.clear();
    }
}
