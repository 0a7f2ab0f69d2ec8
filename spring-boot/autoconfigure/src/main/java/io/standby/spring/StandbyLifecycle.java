package io.standby.spring;

import io.standby.node.StandbyNode;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link StandbyNode} bean once the context is refreshed, and stops it gracefully (robots checkpoint, slots
 * released for standbys) before anything it depends on goes away.
 *
 * <p>Its phase is above the web server's ({@code DEFAULT_PHASE - 1024} for its graceful shutdown, {@code - 2048} for
 * its stop), and lifecycles stop from the highest phase down: so on a graceful shutdown the node hands its slots over
 * first, then the web server drains, and the {@code MongoClient} bean closes only when beans are destroyed, after every
 * lifecycle has stopped. The node starts last, once the web server runs. A start that fails (address taken, database
 * unreachable) fails the application's start. An application that declares its own {@code StandbyNode} bean builds it
 * with {@code builder().build()}, not {@code start()}: this lifecycle starts it.
 */
public final class StandbyLifecycle implements SmartLifecycle {

    /** Stops before the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}) begins. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private final StandbyNode node;
    private volatile boolean running;
    private volatile boolean stopping;

    public StandbyLifecycle(StandbyNode node) {
        this.node = node;
    }

    @Override
    public void start() {
        node.start();
        running = true;
    }

    @Override
    public void stop() {
        stopping = true;
        try {
            node.close();
        } finally {
            running = false;
        }
    }

    /** The graceful stop takes up to the stop timeout; other lifecycles of this phase stop meanwhile. */
    @Override
    public void stop(Runnable callback) {
        Thread.ofPlatform().name("standby-stop").start(() -> {
            try {
                stop();
            } finally {
                callback.run();
            }
        });
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Whether a stop has begun: the node hands its slots over, or has (it never starts again). Running and stopping
     * both hold during the hand-over.
     */
    public boolean isStopping() {
        return stopping;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
