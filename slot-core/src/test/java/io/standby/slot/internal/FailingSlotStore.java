package io.standby.slot.internal;

import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The real MongoDB slot store, whose calls a test can make fail as a lost connection would (the call throws, nothing
 * reaches the database), one kind of call at a time.
 */
class FailingSlotStore implements SlotStore {

    /** {@code READ_ALL} fails both reads of many slots: {@link #readAll()} and a poll's. */
    enum Call {
        READ_ALL,
        READ_HELD_BY,
        READ,
        CLAIM,
        CLAIM_FROM_GONE,
        RECLAIM,
        RENEW,
        /** A renewal that lands, whose answer is lost: the call throws after the write. */
        RENEW_ANSWER,
        RELEASE,
        /** A write of the owner document before claims ({@link #beat}), not a renewal's. */
        BEAT
    }

    private final SlotStore store;
    private final Set<Call> failing = ConcurrentHashMap.newKeySet();
    private final Map<Call, Integer> calls = new ConcurrentHashMap<>();

    FailingSlotStore(SlotStore store) {
        this.store = store;
    }

    /** From now on every call of these kinds throws, until {@link #heal}. */
    FailingSlotStore fail(Call... calls) {
        failing.addAll(List.of(calls));
        return this;
    }

    FailingSlotStore heal() {
        failing.clear();
        return this;
    }

    /** How many calls of this kind were made, failed ones included. */
    int calls(Call call) {
        return calls.getOrDefault(call, 0);
    }

    private void check(Call call) {
        calls.merge(call, 1, Integer::sum);
        if (failing.contains(call)) {
            throw new IllegalStateException("connection lost (" + call + ")");
        }
    }

    @Override
    public List<SlotView> readAll() {
        check(Call.READ_ALL);
        return store.readAll();
    }

    @Override
    public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
        check(Call.READ_ALL);
        return store.poll(me, lateBefore, free);
    }

    @Override
    public List<SlotView> readHeldBy(NodeId node) {
        check(Call.READ_HELD_BY);
        return store.readHeldBy(node);
    }

    @Override
    public Optional<SlotView> read(String slotId) {
        check(Call.READ);
        return store.read(slotId);
    }

    @Override
    public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        check(Call.CLAIM);
        return store.claim(seen, owner, ownerBeat);
    }

    @Override
    public boolean claimFromGone(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        check(Call.CLAIM_FROM_GONE);
        return store.claimFromGone(seen, owner, ownerBeat);
    }

    @Override
    public boolean claimFromWatched(SlotView seen, Ownership owner, long maxBeat, java.time.Duration wait) {
        check(Call.CLAIM_FROM_GONE);
        return store.claimFromWatched(seen, owner, maxBeat, wait);
    }

    @Override
    public long markLinkEnd(NodeId node, String instance) {
        check(Call.CLAIM_FROM_GONE);
        return store.markLinkEnd(node, instance);
    }

    @Override
    public long markLinkEndOfUnmarked(NodeId node, String instance) {
        check(Call.CLAIM_FROM_GONE);
        return store.markLinkEndOfUnmarked(node, instance);
    }

    @Override
    public boolean reclaim(SlotView seen, Ownership owner) {
        check(Call.RECLAIM);
        return store.reclaim(seen, owner);
    }

    @Override
    public Renewals renewAll(Map<String, Long> held, Ownership owner) {
        check(Call.RENEW);
        Renewals renewals = store.renewAll(held, owner);
        check(Call.RENEW_ANSWER);
        return renewals;
    }

    @Override
    public boolean release(String slotId, long epoch, String instance) {
        check(Call.RELEASE);
        return store.release(slotId, epoch, instance);
    }

    @Override
    public boolean revoke(SlotView seen) {
        return store.revoke(seen);
    }

    @Override
    public long markDrain(NodeId node, SlotView.Drain drain) {
        return store.markDrain(node, drain);
    }

    @Override
    public void touch(String slotId) {
        store.touch(slotId);
    }

    @Override
    public boolean create(String slotId) {
        return store.create(slotId);
    }

    @Override
    public void ensureIndexes() {
        store.ensureIndexes();
    }

    @Override
    public void beat(Ownership owner) {
        check(Call.BEAT);
        store.beat(owner);
    }

    @Override
    public boolean sweepOwner(String ownerId, long beat) {
        return store.sweepOwner(ownerId, beat);
    }

    @Override
    public void removeOwner(String ownerId) {
        store.removeOwner(ownerId);
    }
}
