package io.standby.robot.internal;

import io.standby.robot.model.RobotView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * The real store, with switches that make a call fail as an unreachable database would, and hooks that let a test
 * change the database at the moment of a take or a read, as an operator or the protocol's threads may.
 */
final class HookedStore extends ForwardingRobotStore {
    volatile boolean failFence;
    volatile boolean failWatch;
    final IllegalStateException fenceFailure = new IllegalStateException("fence: database unreachable");
    int standbyLinks;
    /** Runs just before a take, with the ids it asks for. */
    volatile Consumer<Collection<String>> beforeTake = ids -> {};
    /** Runs just before a load of whole documents, as the operator's change that lands then. */
    volatile Runnable beforeLoad = () -> {};
    /** Runs just after a read of the slots' robots, before they are reconciled. */
    volatile Runnable afterWatch = () -> {};

    HookedStore(RobotStore store) {
        super(store);
    }

    @Override
    public long fence(String slotId, long epoch, Collection<String> onlyIds) {
        if (failFence) {
            throw fenceFailure;
        }
        return store.fence(slotId, epoch, onlyIds);
    }

    @Override
    public long fenceAndTake(String slotId, long epoch, String node) {
        if (failFence) {
            throw fenceFailure;
        }
        return store.fenceAndTake(slotId, epoch, node);
    }

    @Override
    public long take(String slotId, long epoch, Collection<String> ids, String node) {
        beforeTake.accept(ids);
        return store.take(slotId, epoch, ids, node);
    }

    @Override
    public List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds) {
        beforeLoad.run();
        return store.load(slotId, epoch, onlyIds);
    }

    @Override
    public List<RobotView> watch(Collection<String> slotIds) {
        if (failWatch) {
            throw new IllegalStateException("watch: database unreachable");
        }
        standbyLinks++;
        List<RobotView> read = new ArrayList<>(store.watch(slotIds));
        afterWatch.run();
        return read;
    }
}
