package io.standby.slot.internal;

import io.standby.slot.SlotView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A standby's own record of when it first saw each slot document in its current version, and each owner document at its
 * current beat.
 *
 * <p>The database's clock decides that a lease expired; this is a second, independent condition: the standby must
 * itself have watched the owner stand still for a full lease on its own monotonic clock. A jump of the database's clock
 * alone can therefore not hand a live slot away, since a live owner keeps changing what is watched. It watches one of
 * two things:
 *
 * <ul>
 *   <li>the owner's document ({@link OwnerDocRules#ownerId}), which every renewal raises in the same command as the
 *       slots: one document per owner process, so a poll need not read the slots of live owners. The claim then
 *       requires the slot to carry the very beat watched ({@link SlotRules#claimFilter(SlotView, long)}): the renewal
 *       that wrote it was sent before the standby first saw that beat.
 *   <li>the slot itself (epoch, heartbeat time and instance): for a slot whose owner has no document (a node of an
 *       earlier version, a document swept), or whose beat is not the document's (a slot its owner won and has not
 *       renewed since). The poll reads such a slot only once it is late, so this way is slower.
 * </ul>
 *
 * Released and never-owned slots need no waiting. Not thread-safe: only the poll thread uses it.
 */
final class Observations {

    private record Version(long epoch, long timeMillis, String instance) {
        static Version of(SlotView slot) {
            return new Version(slot.epoch(), slot.time().toEpochMilli(), slot.instance());
        }
    }

    private record Seen(Version version, long sinceNanos) {}

    private record Beat(long beat, long sinceNanos) {}

    /**
     * How this node has waited a slot out on its own clock: on the slot itself (or the slot is free), with no
     * {@code ownerBeat}; or on its owner's document, which stood at {@code ownerBeat}, which the claim must then
     * require.
     */
    record Waited(OptionalLong ownerBeat) {
        static final Waited ON_SLOT = new Waited(OptionalLong.empty());
    }

    /** An owner document that stood still for long: its process renews nothing. */
    record StaleOwner(String ownerId, long beat) {}

    private final Map<String, Seen> seen = new HashMap<>();
    private final Map<String, Beat> owners = new HashMap<>();

    /**
     * Records a read: the slots in it, and the owner documents' beats by id ({@link OwnerDocRules#ownerId}).
     * {@code readNanos} must be taken after the read returned, so it is no earlier than the moment each document got
     * its current version. A slot or owner missing from a read is forgotten: if it comes back, its wait starts again.
     */
    void update(List<SlotView> slots, Map<String, Long> ownerBeats, long readNanos) {
        Map<String, Seen> next = new HashMap<>();
        for (SlotView slot : slots) {
            Version version = Version.of(slot);
            Seen before = seen.get(slot.id());
            next.put(
                    slot.id(),
                    before != null && before.version().equals(version) ? before : new Seen(version, readNanos));
        }
        seen.clear();
        seen.putAll(next);
        Map<String, Beat> nextOwners = new HashMap<>();
        ownerBeats.forEach((id, beat) -> {
            Beat before = owners.get(id);
            nextOwners.put(id, before != null && before.beat() == beat ? before : new Beat(beat, readNanos));
        });
        owners.clear();
        owners.putAll(nextOwners);
    }

    /** Whether, and how, this node may try to claim {@code slot} at {@code nowNanos}, as far as its own clock goes. */
    Optional<Waited> waitedOut(SlotView slot, long nowNanos) {
        return slot.released() ? Optional.of(Waited.ON_SLOT) : seenFor(slot, nowNanos, slot.lease());
    }

    /**
     * Whether, and how, this node has itself watched {@code slot}'s owner stand still for {@code wait} at
     * {@code nowNanos}: the slot in its current version, or else its owner's document at one beat. For a takeover
     * before the lease ends, {@code wait} is the owner's late mark.
     */
    Optional<Waited> seenFor(SlotView slot, long nowNanos, Duration wait) {
        Seen s = seen.get(slot.id());
        if (s != null && s.version().equals(Version.of(slot)) && nowNanos - s.sinceNanos() >= wait.toNanos()) {
            return Optional.of(Waited.ON_SLOT);
        }
        Beat owner = slot.owner() == null || slot.instance() == null
                ? null
                : owners.get(OwnerDocRules.ownerId(slot.owner(), slot.instance()));
        // Only a slot at the very beat watched: one its owner took after it, and did not renew since, is not.
        if (owner != null && owner.beat() == slot.beat() && nowNanos - owner.sinceNanos() >= wait.toNanos()) {
            return Optional.of(new Waited(OptionalLong.of(owner.beat())));
        }
        return Optional.empty();
    }

    /** The owner documents that have stood still for {@code age} at {@code nowNanos}. */
    List<StaleOwner> staleOwners(long nowNanos, Duration age) {
        List<StaleOwner> stale = new ArrayList<>();
        owners.forEach((id, beat) -> {
            if (nowNanos - beat.sinceNanos() >= age.toNanos()) {
                stale.add(new StaleOwner(id, beat.beat()));
            }
        });
        return stale;
    }

    /** The slots and owners seen, for the node's meters: each poll replaces them with what it read. */
    int slotsSeen() {
        return seen.size();
    }

    int ownersSeen() {
        return owners.size();
    }
}
