package io.standby.bench;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import io.standby.testing.TcpProxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A storm, poll interval by poll interval, counted rather than guessed: in each round the polls (the slots' reads) and
 * how long the server took for them, and the claims sent, won and lost. Claims are the single-slot updates whose filter
 * checks expiry by the server's clock ({@code $expr}); won when they matched. The server's time is the proxy's, from a
 * request's last byte to the first byte of its answer ({@link TcpProxy.ServerTimes}): queueing on the server's threads
 * included, the added latency not.
 */
final class StormRounds {

    private enum Kind {
        POLL,
        CLAIM,
        RENEW,
        OTHER
    }

    private record Call(Kind kind, long startNanos, long micros, boolean matched) {}

    private record Answer(String command, long sentNanos, long micros) {}

    private final long roundNanos;
    private final Map<Long, Kind> started = new ConcurrentHashMap<>();
    private final Queue<Call> calls = new ConcurrentLinkedQueue<>();
    private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
    private volatile long start;

    StormRounds(long roundNanos) {
        this.roundNanos = roundNanos;
    }

    /** Round 1 starts now; what came before is forgotten. */
    void start() {
        calls.clear();
        answers.clear();
        start = System.nanoTime();
    }

    /** What the proxy tells of the server's time. */
    TcpProxy.ServerTimes serverTimes() {
        return (command, sent, answered) -> answers.add(new Answer(command, sent, (answered - sent) / 1000));
    }

    /** A client's listener (the bench counts from every node's). */
    CommandListener listener() {
        return new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                started.put((long) event.getRequestId(), kind(event.getCommandName(), event.getCommand()));
            }

            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                Kind kind = started.remove((long) event.getRequestId());
                if (kind == null) {
                    return;
                }
                long micros = event.getElapsedTime(TimeUnit.MICROSECONDS);
                BsonValue n = event.getResponse().get("n");
                boolean matched = n != null && n.isNumber() && n.asNumber().longValue() > 0;
                calls.add(new Call(kind, System.nanoTime() - micros * 1000, micros, matched));
            }

            @Override
            public void commandFailed(com.mongodb.event.CommandFailedEvent event) {
                started.remove((long) event.getRequestId());
            }
        };
    }

    private static Kind kind(String name, BsonDocument command) {
        BsonValue collection = command.get(name);
        boolean slots = collection != null
                && collection.isString()
                && collection.asString().getValue().equals("slots");
        if (!slots) {
            return Kind.OTHER;
        }
        if (name.equals("aggregate")) {
            return Kind.POLL;
        }
        if (name.equals("update") && command.get("updates") != null) {
            // The driver sends the statements as a document sequence; the listener shows them in the command.
            BsonDocument first = command.getArray("updates").get(0).asDocument();
            boolean multi =
                    first.getBoolean("multi", org.bson.BsonBoolean.FALSE).getValue();
            if (multi) {
                return Kind.RENEW;
            }
            return first.getDocument("q").containsKey("$expr") ? Kind.CLAIM : Kind.OTHER;
        }
        return Kind.OTHER;
    }

    /** The table of the rounds up to {@code endNanos} (the fill's end). */
    void print(long endNanos) {
        long rounds = Math.max(1, (endNanos - start + roundNanos - 1) / roundNanos);
        TreeMap<Long, Row> rows = new TreeMap<>();
        for (long r = 0; r < rounds; r++) {
            rows.put(r, new Row());
        }
        for (Call c : calls) {
            Row row = rows.get((c.startNanos() - start) / roundNanos);
            if (row == null) {
                continue;
            }
            switch (c.kind()) {
                case POLL -> row.pollMs.add(c.micros() / 1000);
                case CLAIM -> {
                    row.claims++;
                    if (c.matched()) {
                        row.won++;
                    }
                }
                case RENEW -> row.renewals++;
                case OTHER -> row.other++;
            }
        }
        for (Answer a : answers) {
            Row row = rows.get((a.sentNanos() - start) / roundNanos);
            if (row == null) {
                continue;
            }
            if (a.command().equals("aggregate slots")) {
                row.pollServerMs.add(a.micros() / 1000);
            } else if (a.command().equals("update slots")) {
                row.updateServerMs.add(a.micros() / 1000);
            }
            row.serverMicros += a.micros();
        }
        System.out.println(
                "  | round | polls | poll, client ms p50 / max | poll, server ms p50 / p90 / max | claims sent | won |"
                        + " lost | slot updates, server ms p50 / max | renewals | other calls | server busy |");
        System.out.println("  | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        rows.forEach((r, row) -> System.out.printf(
                Locale.ROOT,
                "  | %d | %d | %s | %s | %d | %d | %d | %s | %d | %d | %.1f s |%n",
                r + 1,
                row.pollMs.size(),
                two(row.pollMs),
                three(row.pollServerMs),
                row.claims,
                row.won,
                row.claims - row.won,
                two(row.updateServerMs),
                row.renewals,
                row.other,
                row.serverMicros / 1e6));
    }

    private static String two(List<Long> ms) {
        if (ms.isEmpty()) {
            return "-";
        }
        Stats s = Stats.of(ms);
        return s.p50() + " / " + s.max();
    }

    private static String three(List<Long> ms) {
        if (ms.isEmpty()) {
            return "-";
        }
        Stats s = Stats.of(ms);
        return s.p50() + " / " + s.percentile(90) + " / " + s.max();
    }

    /** One round's counts. */
    private static final class Row {
        final List<Long> pollMs = new ArrayList<>();
        final List<Long> pollServerMs = new ArrayList<>();
        final List<Long> updateServerMs = new ArrayList<>();
        long claims;
        long won;
        long renewals;
        long other;
        /** The server's time summed over every call that round (several at once count several times). */
        long serverMicros;
    }
}
