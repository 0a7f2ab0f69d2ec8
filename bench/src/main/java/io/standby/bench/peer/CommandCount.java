package io.standby.bench.peer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How many database commands a process had sent by {@code atMillis} (wall clock), by command and collection
 * ({@code "update slots"}). Two of them give a rate over the time between.
 */
public record CommandCount(long atMillis, Map<String, Long> byKind) {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    // Micrometer's MongoMetricsCommandListener, in Prometheus' text: one series per client, command, collection,
    // status.
    private static final Pattern SERIES =
            Pattern.compile("^mongodb_driver_commands_seconds_count\\{(.*)} (\\S+)$", Pattern.MULTILINE);
    private static final Pattern TAG = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    public CommandCount {
        byKind = Map.copyOf(byKind);
    }

    public long total() {
        return byKind.values().stream().mapToLong(Long::longValue).sum();
    }

    /** A {@code standby node}'s count, from its {@code /metrics}: every client of the node, summed. */
    public static CommandCount scrape(int port) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("/metrics of 127.0.0.1:" + port + " answered " + response.statusCode());
            }
            return parsePrometheus(System.currentTimeMillis(), response.body());
        } catch (IOException e) {
            throw new IllegalStateException("/metrics of 127.0.0.1:" + port + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static CommandCount parsePrometheus(long atMillis, String text) {
        Map<String, Long> kinds = new TreeMap<>();
        Matcher series = SERIES.matcher(text);
        while (series.find()) {
            Map<String, String> tags = new TreeMap<>();
            Matcher tag = TAG.matcher(series.group(1));
            while (tag.find()) {
                tags.put(tag.group(1), tag.group(2));
            }
            String kind = tags.getOrDefault("command", "?") + " " + tags.getOrDefault("collection", "?");
            kinds.merge(kind, (long) Double.parseDouble(series.group(2)), Long::sum);
        }
        return new CommandCount(atMillis, kinds);
    }

    /** The last {@code COMMANDS <ms> <total> <kind=n,...>} line of a {@link ShedLockJob}'s output, if any. */
    static CommandCount lastJobLine(String output) {
        String last = null;
        for (String line : output.split("\n")) {
            if (line.startsWith("COMMANDS ")) {
                last = line;
            }
        }
        if (last == null) {
            return null;
        }
        String[] parts = last.trim().split(" ");
        Map<String, Long> kinds = new TreeMap<>();
        if (parts.length > 3) {
            for (String kind : parts[3].split(",")) {
                int eq = kind.lastIndexOf('=');
                kinds.put(kind.substring(0, eq).replace(':', ' '), Long.parseLong(kind.substring(eq + 1)));
            }
        }
        return new CommandCount(Long.parseLong(parts[1]), kinds);
    }

    /** Commands per second from {@code earlier} to this one. */
    public double ratePerSecond(CommandCount earlier) {
        return (total() - earlier.total()) * 1000.0 / (atMillis - earlier.atMillis);
    }

    /** What was sent between {@code earlier} and this one: {@code "aggregate slots 59, update slots 30"}. */
    public String breakdown(CommandCount earlier) {
        return byKind.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - earlier.byKind.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    static String format(double rate) {
        return String.format(Locale.ROOT, "%.2f", rate);
    }
}
