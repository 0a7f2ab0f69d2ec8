package io.standby.robot.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Sequence numbers for a node's robot writes, increasing across every robot, run and lease of the node. Only the order
 * within one token matters, and a token belongs to one node, so one counter serves all.
 */
public final class WriteSequence {

    private final AtomicLong last = new AtomicLong();

    public long next() {
        return last.incrementAndGet();
    }
}
