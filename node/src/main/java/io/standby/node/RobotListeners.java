package io.standby.node;

import io.standby.robot.runtime.RobotListener;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extensions' robot listeners as the runtime's one: each hears every call, in order, even if one before it throws
 * (what the runtime promises a single listener).
 */
final class RobotListeners implements RobotListener {

    private static final Logger log = LoggerFactory.getLogger(RobotListeners.class);

    private final List<RobotListener> listeners;

    private RobotListeners(List<RobotListener> listeners) {
        this.listeners = listeners;
    }

    static RobotListener of(List<RobotListener> listeners) {
        List<RobotListener> some =
                listeners.stream().filter(l -> l != RobotListener.NONE).toList();
        return switch (some.size()) {
            case 0 -> RobotListener.NONE;
            case 1 -> some.getFirst();
            default -> new RobotListeners(some);
        };
    }

    private void each(Consumer<RobotListener> call) {
        for (RobotListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("A robot listener failed: {}", e.toString());
            }
        }
    }

    @Override
    public void checkpointed(String robotId, Duration latency) {
        each(l -> l.checkpointed(robotId, latency));
    }

    @Override
    public void fenced(String robotId) {
        each(l -> l.fenced(robotId));
    }

    @Override
    public void restarting(String robotId) {
        each(l -> l.restarting(robotId));
    }

    @Override
    public void failed(String robotId) {
        each(l -> l.failed(robotId));
    }

    @Override
    public void batchSent(int writes) {
        each(l -> l.batchSent(writes));
    }
}
