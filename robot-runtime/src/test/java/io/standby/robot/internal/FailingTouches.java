package io.standby.robot.internal;

import com.mongodb.MongoTimeoutException;
import io.standby.slot.NodeId;
import io.standby.slot.SlotView;
import io.standby.slot.internal.FreeShare;
import io.standby.slot.internal.SlotStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** The real slot store whose first {@code failures} touches fail, as when the database does not answer in time. */
public final class FailingTouches implements SlotStore {
    private final SlotStore store;
    public int failures;
    public int calls;

    public FailingTouches(SlotStore store, int failures) {
        this.store = store;
        this.failures = failures;
    }

    @Override
    public void touch(String slotId) {
        calls++;
        if (failures > 0) {
            failures--;
            throw new MongoTimeoutException("no answer in time");
        }
        store.touch(slotId);
    }

    @Override
    public List<SlotView> readAll() {
        return store.readAll();
    }

    @Override
    public Optional<SlotView> read(String slotId) {
        return store.read(slotId);
    }

    @Override
    public Poll poll(NodeId me, Instant lateBefore, FreeShare free) {
        return store.poll(me, lateBefore, free);
    }

    @Override
    public boolean claim(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        return store.claim(seen, owner, ownerBeat);
    }

    @Override
    public boolean claimFromGone(SlotView seen, Ownership owner, OptionalLong ownerBeat) {
        return store.claimFromGone(seen, owner, ownerBeat);
    }

    @Override
    public boolean claimFromWatched(SlotView seen, Ownership owner, long maxBeat, java.time.Duration wait) {
        return store.claimFromWatched(seen, owner, maxBeat, wait);
    }

    @Override
    public long markLinkEnd(io.standby.slot.NodeId node, String instance) {
        return store.markLinkEnd(node, instance);
    }

    @Override
    public long markLinkEndOfUnmarked(NodeId node, String instance) {
        return store.markLinkEndOfUnmarked(node, instance);
    }

    @Override
    public void beat(Ownership owner) {
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

    @Override
    public boolean reclaim(SlotView seen, Ownership owner) {
        return store.reclaim(seen, owner);
    }

    @Override
    public Renewals renewAll(Map<String, Long> held, Ownership owner) {
        return store.renewAll(held, owner);
    }

    @Override
    public boolean release(String slotId, long epoch, String instance) {
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
    public boolean create(String slotId) {
        return store.create(slotId);
    }
}
