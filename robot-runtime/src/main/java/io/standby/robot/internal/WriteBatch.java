package io.standby.robot.internal;

import io.standby.robot.model.RobotToken;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch of queued writes: merged per robot, token and kind, sent as one unordered bulk, and each write's future
 * settled. One refused write never fails the others sent with it. When the bulk matched fewer writes than it sent, the
 * robots' documents are read back (from the primary, majority read concern): a write whose token is still there with
 * its sequence number or a later one landed; one whose token is gone is reported fenced, which is safe even if it
 * landed just before the fence.
 */
public final class WriteBatch {

    private static final Logger log = LoggerFactory.getLogger(WriteBatch.class);

    /** A write waiting for its outcome. */
    public record Pending(RobotWrite write, CompletableFuture<Boolean> done) {}

    private record Key(RobotToken token, RobotWrite.Kind kind) {}

    /** A write sent but not confirmed by a majority: it may still be rolled back, so it is not acknowledged. */
    public static final class Unconfirmed extends RuntimeException {
        Unconfirmed(String message) {
            super(message);
        }
    }

    private WriteBatch() {}

    /**
     * Sends the batch and settles every future in it; an exception thrown here means the database could not be reached,
     * and the caller fails the futures still open.
     */
    public static void send(RobotStore store, List<Pending> batch) {
        Map<Key, List<Pending>> byKey = new LinkedHashMap<>();
        for (Pending p : batch) {
            byKey.computeIfAbsent(new Key(p.write().token(), p.write().kind()), k -> new ArrayList<>())
                    .add(p);
        }
        List<List<Pending>> groups = List.copyOf(byKey.values());
        List<RobotWrite> merged = groups.stream()
                .map(g -> RobotWrite.merge(g.stream().map(Pending::write).toList()))
                .toList();
        try {
            if (store.write(merged) == merged.size()) {
                groups.forEach(g -> complete(g, true));
            } else {
                settleByReadBack(store, groups, merged);
            }
        } catch (RobotStore.BulkFailure failure) {
            List<List<Pending>> rest = new ArrayList<>();
            List<RobotWrite> restMerged = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                String refused = failure.refused().get(i);
                if (refused != null) {
                    refuse(groups.get(i), refused);
                } else if (failure.unconfirmed()) {
                    Unconfirmed unconfirmed = new Unconfirmed("not confirmed by a majority: " + failure.getMessage());
                    groups.get(i).forEach(p -> p.done().completeExceptionally(unconfirmed));
                } else {
                    rest.add(groups.get(i));
                    restMerged.add(merged.get(i));
                }
            }
            settleByReadBack(store, rest, restMerged);
        } catch (IllegalArgumentException e) {
            if (groups.size() == 1) {
                refuse(groups.getFirst(), e.getMessage());
                return;
            }
            // One write the driver cannot send (too large, say) must not hold back every robot's
            // checkpoints: send each alone, so that only that one is refused.
            for (List<Pending> group : groups) {
                send(store, group);
            }
        }
    }

    private static void settleByReadBack(RobotStore store, List<List<Pending>> groups, List<RobotWrite> merged) {
        if (groups.isEmpty()) {
            return;
        }
        Map<String, RobotStore.Stored> stored = store.stored(
                merged.stream().map(w -> w.token().robotId()).distinct().toList());
        for (int i = 0; i < groups.size(); i++) {
            RobotWrite write = merged.get(i);
            RobotStore.Stored now = stored.get(write.token().robotId());
            if (write.landedIn(now)) {
                complete(groups.get(i), true);
            } else if (now == null || !now.token().equals(write.token())) {
                log.debug(
                        "Write to {} rejected: token {} is stale", write.token().robotId(), write.token());
                complete(groups.get(i), false);
            } else {
                // The token is still there but the write is not: it was not applied; sending it again is safe.
                Unconfirmed unknown = new Unconfirmed("matched nothing although its token holds");
                groups.get(i).forEach(p -> p.done().completeExceptionally(unknown));
            }
        }
    }

    private static void complete(List<Pending> writes, boolean written) {
        writes.forEach(p -> p.done().complete(written));
    }

    private static void refuse(List<Pending> writes, String why) {
        IllegalArgumentException refused = new IllegalArgumentException("the database refused the write: " + why);
        writes.forEach(p -> p.done().completeExceptionally(refused));
    }
}
