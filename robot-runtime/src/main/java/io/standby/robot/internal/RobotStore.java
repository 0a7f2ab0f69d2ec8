package io.standby.robot.internal;

import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The robot runtime's database operations. Every write of a run is conditional on its {@link RobotToken}; writes that
 * change who may run a robot (fence, take, hand-over, delete) are conditional on the robot being in the state the
 * caller decided from. Any operation may throw a runtime exception when the database cannot be reached in time.
 */
public interface RobotStore {

    /** Creates the indexes the queries use; idempotent. */
    void ensureIndexes();

    /**
     * Raises the epoch of the slot's robots (all of them, or those listed) that are below {@code epoch} to
     * {@code epoch}, counts the fence ({@code fences}), clears their runner and restarts their write sequences under
     * the new token. After this, every operation of an earlier runner matches nothing, this node's own from before the
     * fence included. Returns how many were raised.
     */
    long fence(String slotId, long epoch, Collection<String> onlyIds);

    /**
     * {@link #fence} and {@link #take} in one update of the slot's robots below {@code epoch} that are runnable: each
     * is fenced at {@code epoch} and run by {@code node}, with one fence counted, its {@code state} kept as the fence
     * keeps it ({@link RobotRules#fenceTakeUpdate}). For a new lease's start, which would otherwise fence and take
     * every robot of the slot: one write per robot instead of two. Robots already at {@code epoch} are left as they
     * are. Returns how many it fenced and took.
     */
    long fenceAndTake(String slotId, long epoch, String node);

    /** Whole documents (with context) of the slot's robots fenced at {@code epoch}, or only those listed. */
    List<RobotView> load(String slotId, long epoch, Collection<String> onlyIds);

    /**
     * Marks the listed robots as run by {@code node} (state STARTING), if they are fenced at this epoch, runnable
     * (wanted running, not failed, not moving) and run by nobody else. A robot is started only after this: an
     * operator's direct move or removal, which needs no runner, can then never slip in. Every take counts as a fence
     * ({@code fences} + 1, write sequences restarted), so every run has a token of its own: a late write of an earlier
     * run of the robot under the same lease (stopped and started, or paused and resumed) matches nothing.
     *
     * @return how many of the listed robots matched those conditions and are now this node's, at this epoch (robots it
     *     already held at this epoch included); {@code ids} has no duplicates
     */
    long take(String slotId, long epoch, Collection<String> ids, String node);

    /** The watched fields of every robot in these slots, without config or context: one query. */
    List<RobotView> watch(Collection<String> slotIds);

    /**
     * Moves a robot to the slot it should go to, if {@link RobotRules.HandOver#filter()} still matches (the mover's
     * token, or the robot as the operator read it): the context travels along, and the epoch starts over for the new
     * slot, whose owner raises it when it takes it. Then tells that slot's owner
     * ({@link io.standby.slot.SlotTable#tellOwner}), which never fails the hand-over.
     *
     * @return whether the robot moved
     */
    boolean handOver(RobotRules.HandOver handOver);

    /** Deletes a robot whose removal was requested, under the token of the run that stopped it. */
    boolean delete(RobotToken token);

    /**
     * Sends the writes in one unordered bulk and returns how many matched.
     *
     * @throws BulkFailure when the database refused some writes or could not confirm them
     * @throws IllegalArgumentException when a write cannot be sent at all (too large, say)
     */
    int write(List<RobotWrite> writes);

    /** Each listed robot that still exists: its token and write sequences, read from the primary. */
    Map<String, Stored> stored(Collection<String> ids);

    /** What a robot document holds of a run's token and writes. */
    record Stored(RobotToken token, long seq, long statusSeq) {
        long seq(RobotWrite.Kind kind) {
            return kind == RobotWrite.Kind.CHECKPOINT ? seq : statusSeq;
        }
    }

    /**
     * A bulk the database answered with errors: some writes refused for good (by index in the bulk), or the whole bulk
     * applied on the primary but not confirmed by a majority, so that a failover may still roll it back. Neither is an
     * acknowledgement.
     */
    final class BulkFailure extends RuntimeException {
        private final Map<Integer, String> refused;
        private final boolean unconfirmed;

        public BulkFailure(Map<Integer, String> refused, boolean unconfirmed, String message) {
            super(message);
            this.refused = Map.copyOf(refused);
            this.unconfirmed = unconfirmed;
        }

        public Map<Integer, String> refused() {
            return refused;
        }

        public boolean unconfirmed() {
            return unconfirmed;
        }
    }
}
