package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The database operations of the slot protocol. Every operation is a single-document compare-and-set
 * whose filter carries all of its safety conditions, so no read, however stale, can make it unsafe.
 * Any operation may throw a runtime exception when the database cannot be reached in time.
 */
public interface SlotStore {

    /** Every well-formed slot document, in id order; malformed ones are skipped with a warning. */
    List<SlotView> readAll();

    /** The slots held under {@code node}'s ip:port (by any instance), in id order: the check before a node joins. */
    default List<SlotView> readHeldBy(NodeId node) {
        return readAll().stream().filter(slot -> node.equals(slot.owner())).toList();
    }

    /** One slot, if it exists and is well-formed. */
    Optional<SlotView> read(String slotId);

    /**
     * Takes {@code seen} for {@code owner} if it is still exactly that version (epoch and time) and
     * expired by the server's clock: sets the owner, increments the epoch, stamps the server time.
     * Returns true if this call won.
     */
    boolean claim(SlotView seen, Ownership owner);

    /**
     * Takes {@code seen} for {@code owner} before its lease ran out, because its owner's process was found
     * gone: only if it is still exactly that version, owner included (epoch, time, ip, port and instance),
     * so any renewal since makes it match nothing. Sets the owner, increments the epoch (fencing every
     * write of the former owner), stamps the server time. Returns true if this call won.
     */
    boolean claimFromGone(SlotView seen, Ownership owner);

    /**
     * Takes back a slot that {@code seen} shows held by the claimer's own identity, without waiting for
     * its lease: only valid because the node proved by binding its address that no other live process
     * holds that identity. Increments the epoch, so the earlier instance is fenced.
     */
    boolean reclaim(SlotView seen, Ownership owner);

    /** Stamps the server time on a slot this instance still owns at this epoch: {@link #renewAll} of one. */
    default boolean renew(String slotId, long epoch, Ownership owner) {
        return renewAll(Map.of(slotId, epoch), owner).renewed().contains(slotId);
    }

    /**
     * Renews in one command every slot of {@code held} (slot id to epoch) that this instance still owns
     * at that epoch, as {@link #renew} does one; if some were not renewed, reads those in a second
     * command, so that the caller learns at once which it lost and how. A slot this read shows at its
     * epoch under this instance was renewed by the first: an epoch only rises, and a slot comes back to
     * this instance only at a new epoch.
     */
    Renewals renewAll(Map<String, Long> held, Ownership owner);

    /**
     * Gives up a slot this instance owns at this epoch, after its work stopped: clears the owner and any
     * drain request on it, keeps the epoch, and sets time to 1970 so that standbys may take it at once.
     */
    boolean release(String slotId, long epoch, String instance);

    /**
     * An operator's forced release of {@code seen}, if it is still that version and has an owner: clears
     * the owner and increments the epoch, so the owner's next renewal fails and writes fenced by the
     * epoch are rejected, but keeps {@code time}, so standbys still wait out the lease.
     */
    boolean revoke(SlotView seen);

    /**
     * Puts an operator's drain request ({@link SlotView#drain()}) on every slot {@code instance} of
     * {@code node} holds, so that the owner, which reads its slots at every poll, sees it at its next one.
     * Writes nothing else: owner, epoch, time and lease stay as they are, so no lease is weakened and no
     * compare-and-set of the owner or of a standby is disturbed. Returns how many slots it marked.
     */
    long markDrain(NodeId node, String instance, boolean force);

    /**
     * Raises the slot's {@code changes}: its robots changed, and its owner should read them again. One try;
     * {@link io.standby.slot.SlotTable#tellOwner} is the rule that callers use, with its retry.
     */
    void touch(String slotId);

    /** Creates a slot nobody has owned, claimable at once; false if it exists already. */
    boolean create(String slotId);

    /**
     * What a renewal of many slots found: the ids renewed, and the others as they are now; a held slot in
     * neither no longer exists.
     */
    record Renewals(Set<String> renewed, Map<String, SlotView> others) {

        public Renewals {
            renewed = Set.copyOf(renewed);
            others = Map.copyOf(others);
        }

        public static Renewals all(Map<String, Long> held) {
            return new Renewals(held.keySet(), Map.of());
        }

        /** From the held slots as read after a renewal that matched fewer than all of them. */
        public static Renewals judge(Map<String, Long> held, String instance, List<SlotView> now) {
            Set<String> renewed = new HashSet<>();
            Map<String, SlotView> others = new HashMap<>();
            for (SlotView slot : now) {
                Long epoch = held.get(slot.id());
                if (epoch == null) {
                    continue;
                }
                if (slot.epoch() == epoch && instance.equals(slot.instance())) {
                    renewed.add(slot.id());
                } else {
                    others.put(slot.id(), slot);
                }
            }
            return new Renewals(renewed, others);
        }
    }

    /**
     * Who owns a slot: identity, process instance, the lease it writes, and its late mark (null for an
     * owner that does not pause its robots at that mark, whose slot is then never taken over early).
     */
    record Ownership(NodeId node, String instance, Duration lease, Duration late) {

        /** An owner without a late mark. */
        public Ownership(NodeId node, String instance, Duration lease) {
            this(node, instance, lease, null);
        }
    }
}
