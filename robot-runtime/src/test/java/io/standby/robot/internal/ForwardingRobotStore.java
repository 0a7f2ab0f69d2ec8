package io.standby.robot.internal;

import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** The real store, passed through: a test overrides what it holds back or fails, as the wire would. */
class ForwardingRobotStore implements RobotStore {

    final RobotStore store;

    ForwardingRobotStore(RobotStore store) {
        this.store = store;
    }

    @Override
    public int write(List<RobotWrite> writes) {
        return store.write(writes);
    }

    @Override
    public Map<String, Stored> stored(Collection<String> ids) {
        return store.stored(ids);
    }

    @Override
    public void ensureIndexes() {
        store.ensureIndexes();
    }

    @Override
    public long fence(String slotId, long epoch, Collection<String> onlyIds) {
        return store.fence(slotId, epoch, onlyIds);
    }

    @Override
    public long fenceAndTake(String slotId, long epoch, String node) {
        return store.fenceAndTake(slotId, epoch, node);
    }

    @Override
    public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
        return store.load(slotId, epoch, onlyIds);
    }

    @Override
    public long take(String slotId, long epoch, Collection<String> ids, String node) {
        return store.take(slotId, epoch, ids, node);
    }

    @Override
    public List<RobotView> watch(Collection<String> slotIds) {
        return store.watch(slotIds);
    }

    @Override
    public boolean handOver(RobotRules.HandOver handOver) {
        return store.handOver(handOver);
    }

    @Override
    public boolean delete(RobotToken token) {
        return store.delete(token);
    }
}
