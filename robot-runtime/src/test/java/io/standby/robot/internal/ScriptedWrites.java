package io.standby.robot.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Writes that a test settles by hand: each submitted write waits, in order, until the test completes its future as the
 * database would have answered (acknowledged, stale token, refused, not acknowledged). Where a test needs an outcome
 * the embedded server cannot produce on demand.
 */
final class ScriptedWrites implements RobotWrites {

    record Submitted(RobotWrite write, CompletableFuture<Boolean> done) {}

    final List<RobotWrite> submitted = new CopyOnWriteArrayList<>();
    private final LinkedBlockingQueue<Submitted> open = new LinkedBlockingQueue<>();

    @Override
    public CompletableFuture<Boolean> submit(RobotWrite write) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        submitted.add(write);
        open.add(new Submitted(write, done));
        return done;
    }

    /** The next write not yet settled, waited for up to 10 s. */
    Submitted next() throws InterruptedException {
        Submitted next = open.poll(10, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("no write was submitted within 10 s");
        }
        return next;
    }

    /** Whether a write is waiting to be settled. */
    boolean pending() {
        return !open.isEmpty();
    }
}
