package io.standby.slot.internal;

import io.standby.slot.NodeId;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A probe that answers what the test scripted, per address, and records every connect it was asked for. */
final class ScriptedProbe implements OwnerProbe {

    private final Map<NodeId, Deque<Result>> next = new HashMap<>();
    private final Map<NodeId, Result> otherwise = new HashMap<>();
    final List<NodeId> probed = new ArrayList<>();

    /** From now on {@code node} answers {@code result}, after any answers queued with {@link #then}. */
    ScriptedProbe always(NodeId node, Result result) {
        otherwise.put(node, result);
        return this;
    }

    /** The next answers of {@code node}, in order. */
    ScriptedProbe then(NodeId node, Result... results) {
        next.computeIfAbsent(node, n -> new ArrayDeque<>()).addAll(List.of(results));
        return this;
    }

    @Override
    public synchronized Result probe(NodeId node, Duration timeout) {
        probed.add(node);
        Deque<Result> queued = next.get(node);
        if (queued != null && !queued.isEmpty()) {
            return queued.poll();
        }
        return otherwise.getOrDefault(node, Result.TIMEOUT);
    }

    long probesOf(NodeId node) {
        return probed.stream().filter(node::equals).count();
    }
}
