package io.standby.bench;

import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
import org.bson.BsonValue;

/**
 * The database calls of a storm's nodes, as their drivers saw them: each successful call's time, the calls that failed
 * (most often the client's own timeout), and how often each node read the slots (an {@code aggregate} or {@code find}
 * on {@code slots}: its polls, and the join's one read).
 */
final class StormCalls {

    private final Queue<Long> micros = new ConcurrentLinkedQueue<>();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLongArray slotReads;
    /** Failed calls by command and exception, to say what failed. */
    private final Map<String, Long> failures = new ConcurrentHashMap<>();

    StormCalls(int nodes) {
        this.slotReads = new AtomicLongArray(nodes);
    }

    /** The listener for node {@code node}'s client. */
    CommandListener of(int node) {
        return new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                String name = event.getCommandName();
                if (name.equals("aggregate") || name.equals("find")) {
                    BsonValue collection = event.getCommand().get(name);
                    if (collection != null
                            && collection.isString()
                            && collection.asString().getValue().equals("slots")) {
                        slotReads.incrementAndGet(node);
                    }
                }
            }

            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                micros.add(event.getElapsedTime(TimeUnit.MICROSECONDS));
            }

            @Override
            public void commandFailed(CommandFailedEvent event) {
                failed.incrementAndGet();
                failures.merge(
                        event.getCommandName() + ": "
                                + event.getThrowable().getClass().getSimpleName(),
                        1L,
                        Long::sum);
            }
        };
    }

    /** Forgets everything counted so far: a phase starts. */
    void reset() {
        micros.clear();
        failed.set(0);
        failures.clear();
        for (int i = 0; i < slotReads.length(); i++) {
            slotReads.set(i, 0);
        }
    }

    int nodes() {
        return slotReads.length();
    }

    int succeeded() {
        return micros.size();
    }

    long failed() {
        return failed.get();
    }

    /** {@code aggregate: MongoOperationTimeoutException 12, ...}, the most frequent first; empty if none failed. */
    String failures() {
        return failures.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** The successful calls' times, in milliseconds. */
    Stats millis() {
        return Stats.of(List.copyOf(micros).stream().map(us -> us / 1000).toList());
    }

    /** The most reads of the slots any one node made since the reset. */
    long mostSlotReads() {
        long most = 0;
        for (int i = 0; i < slotReads.length(); i++) {
            most = Math.max(most, slotReads.get(i));
        }
        return most;
    }
}
