package io.standby.robot.internal;

import io.standby.robot.model.RobotToken;
import io.standby.robot.model.RobotView;
import io.standby.slot.Lease;
import io.standby.slot.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A launcher of runs that do what a test scripts and record what a slot asked of them, on a clock that moves only while
 * a run is awaited: a slot's own rules, without robot threads or real waits.
 */
final class RecordingRuns implements Run.Launcher {

    /** The clock of the slots under test: it moves only by what the runs' awaits took. */
    final ManualClock clock = new ManualClock();

    /**
     * A clock that moves only when told. slot-core's tests have one of their own: sharing it took a test jar, which
     * {@code -Dmaven.test.skip} (how {@code ./standby} builds) cannot resolve.
     */
    static final class ManualClock implements MonotonicClock {

        private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

        @Override
        public long nanoTime() {
            return nanos.get();
        }

        void tick(Duration duration) {
            nanos.addAndGet(duration.toNanos());
        }
    }
    /** Every run launched, in launch order. */
    final List<RecordingRun> launched = new CopyOnWriteArrayList<>();

    @Override
    public Run launch(RobotView robot, Lease lease) {
        RecordingRun run = new RecordingRun(robot, lease, clock);
        launched.add(run);
        return run;
    }

    @Override
    public boolean aliveOnNode(String robotId) {
        return launched.stream().anyMatch(r -> r.token().robotId().equals(robotId) && r.isAlive());
    }

    List<String> launchedIds() {
        return launched.stream().map(r -> r.token().robotId()).toList();
    }

    RecordingRun run(String robotId) {
        return launched.stream()
                .filter(r -> r.token().robotId().equals(robotId))
                .reduce((a, b) -> b)
                .orElseThrow();
    }

    /**
     * One run. By default its robot returns when asked to stop (after {@link #stopTakes}) and when interrupted; a test
     * can make it ignore either, or be finishing its last words.
     */
    static final class RecordingRun implements Run {
        final RobotView robot;
        final Lease lease;
        private final ManualClock clock;
        private final RobotToken token;
        /**
         * What the slot asked, in order: "stop OPERATOR", "stop MOVE slot-1", "interrupt", "interrupt removed",
         * "resend".
         */
        final List<String> asked = new CopyOnWriteArrayList<>();
        /** The bound of every await, in order. */
        final List<Duration> awaits = new CopyOnWriteArrayList<>();

        volatile boolean alive = true;
        /** When the stop was asked (clock nanos), or -1. */
        volatile long stopRequestedAt = -1;
        /** When it was first interrupted (clock nanos), or -1. */
        volatile long interruptedAt = -1;

        volatile boolean ignoresStop;
        volatile boolean ignoresInterrupt;
        volatile boolean finishing;
        volatile boolean awaitIsInterrupted;
        /** How long its robot takes to return once asked to stop, counted from the request. */
        volatile Duration stopTakes = Duration.ZERO;

        RecordingRun(RobotView robot, Lease lease, ManualClock clock) {
            this.robot = robot;
            this.lease = lease;
            this.clock = clock;
            this.token = RobotToken.of(robot);
        }

        @Override
        public RobotToken token() {
            return token;
        }

        @Override
        public boolean isAlive() {
            return alive;
        }

        @Override
        public void requestStop(Stop why, String target) {
            asked.add("stop " + why + (target == null ? "" : " " + target));
            if (stopRequestedAt < 0) {
                stopRequestedAt = clock.nanoTime();
            }
        }

        @Override
        public void interrupt() {
            interrupted("interrupt");
        }

        @Override
        public void interruptRemoved() {
            interrupted("interrupt removed");
        }

        private void interrupted(String how) {
            asked.add(how);
            if (interruptedAt < 0) {
                interruptedAt = clock.nanoTime();
            }
            if (!ignoresInterrupt) {
                alive = false;
            }
        }

        @Override
        public void resendStatus() {
            asked.add("resend");
        }

        @Override
        public boolean finishing() {
            return finishing;
        }

        @Override
        public boolean await(Duration atMost) throws InterruptedException {
            awaits.add(atMost);
            if (awaitIsInterrupted) {
                throw new InterruptedException("the releasing thread was interrupted");
            }
            // Its robot began to stop when asked, not when awaited: the runs of a slot stop side by side.
            long stopsAt = stopRequestedAt + stopTakes.toNanos();
            if (alive && stopRequestedAt >= 0 && !ignoresStop && stopsAt - clock.nanoTime() <= atMost.toNanos()) {
                clock.tick(Duration.ofNanos(Math.max(0, stopsAt - clock.nanoTime())));
                alive = false;
            }
            if (alive) {
                clock.tick(atMost);
                return false;
            }
            return true;
        }
    }
}
