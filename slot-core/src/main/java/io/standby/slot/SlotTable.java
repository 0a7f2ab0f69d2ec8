package io.standby.slot;

import io.standby.slot.internal.ApiAccess;
import io.standby.slot.internal.MongoSlotStore;
import io.standby.slot.internal.SlotIds;
import io.standby.slot.internal.SlotRules;
import io.standby.slot.internal.SlotStore;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What an operator does to the slots: create them, list them, and release one by force. */
public final class SlotTable {

    /** The slots' collection, and the field that tells an owner its robots changed. */
    public static final String COLLECTION = SlotFields.COLLECTION;

    public static final String CHANGES = SlotFields.CHANGES;

    /** What an operation that needs slots says when there are none. */
    public static final String NO_SLOTS = "there are no slots (create them first)";

    /** Slot ids in their natural order: slot-2 before slot-10. */
    public static final java.util.Comparator<String> ID_ORDER = SlotIds.NATURAL;

    /** How many times {@link #tellOwner} tries to tell a slot's owner. */
    public static final int TELL_TRIES = 2;

    static {
        ApiAccess.register(new HiddenConstructors());
    }

    private final SlotStore store;

    public SlotTable(StandbyDatabase database) {
        this(new MongoSlotStore(database));
    }

    /** Over any slot store, through {@link ApiAccess}: the simulation drives this very table over its own database. */
    SlotTable(SlotStore store) {
        this.store = store;
    }

    /**
     * Makes sure {@code slot-0 ... slot-(count-1)} exist; existing slots are left as they are, so running it twice
     * changes nothing and a larger count adds slots. It never removes slots.
     *
     * @return the number of slots created
     * @throws IllegalArgumentException if count is less than 1
     */
    public int init(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("slot count " + count + " must be at least 1");
        }
        int created = 0;
        for (int i = 0; i < count; i++) {
            // An existing slot is left as it is.
            if (store.create(SlotIds.of(i))) {
                created++;
            }
        }
        return created;
    }

    /**
     * Tells the slot's owner that its robots changed: raises {@code changes}, which it reads every poll, so that it
     * reads its robots again at once. Every change to a robot that its runner must act on is followed by this, the
     * operator's and the runtime's alike. It tries {@link #TELL_TRIES} times and never throws: the change it announces
     * is recorded already, and an owner that is not told finds it at its periodic full read, so a failure here only
     * delays it.
     *
     * @return whether the owner was told
     */
    public boolean tellOwner(String slotId) {
        for (int attempt = 0; attempt < TELL_TRIES; attempt++) {
            try {
                store.touch(slotId);
                return true;
            } catch (RuntimeException e) {
                // Once more; after that the owner finds the change at its periodic full read.
            }
        }
        return false;
    }

    /** Every well-formed slot, in slot order, with ages judged by the database's clock. */
    public List<SlotView> list() {
        return store.readAll();
    }

    /**
     * How many slots are in each state, counted by the database at its own time in one small reply, whatever the number
     * of slots: what a dashboard or an alert on slots without an owner needs. Every state is in the map, 0 if no slot
     * is in it.
     */
    public Map<SlotState, Long> countByState() {
        Map<SlotState, Long> counts = new EnumMap<>(SlotState.class);
        for (SlotState state : SlotState.values()) {
            counts.put(state, 0L);
        }
        counts.putAll(store.census());
        return counts;
    }

    public Optional<SlotView> get(String slotId) {
        return store.read(slotId);
    }

    /**
     * Releases a slot by force while its owner may still be running robots: clears the owner and increments the epoch,
     * so its next renewal fails, but keeps {@code time}: standbys wait out the lease, which gives the owner time to
     * notice and stop before anyone else starts the slot's robots. This changes the slot alone: where robots are bound
     * to it, use the robot table's forced release, which also fences their writes at the new epoch before it returns.
     *
     * @return the slot as it was before, if it had an owner; empty if it was already free
     * @throws IllegalArgumentException if there is no such slot
     */
    public Optional<SlotView> forceRelease(String slotId) {
        for (int attempt = 0; attempt < 10; attempt++) {
            SlotView before = store.read(slotId)
                    .orElseThrow(() -> new IllegalArgumentException("unknown slot '" + slotId + "'" + knownSlots()));
            if (before.owner() == null) {
                return Optional.empty();
            }
            if (store.revoke(before)) {
                return Optional.of(before);
            }
            // The owner changed between the read and the write: read again.
        }
        throw new IllegalStateException("slot '" + slotId + "' keeps changing owner; try again");
    }

    /** The epoch {@link #forceRelease} leaves a slot at, given the slot as it was before. */
    public static long epochAfterForcedRelease(SlotView before) {
        return SlotRules.revokedEpoch(before);
    }

    private String knownSlots() {
        List<SlotView> slots = store.readAll();
        if (slots.isEmpty()) {
            return ": " + NO_SLOTS;
        }
        return " (slots: " + slots.getFirst().id() + " .. " + slots.getLast().id() + ")";
    }
}
