package io.standby.bench.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The watch-link meters of one node process, read from its {@code /metrics} (Prometheus' text) at
 * {@code atMillis}: the links open now on either side, and what its links did since the process started.
 */
record NodeScrape(long atMillis, Map<String, Double> values) {

    /** Links from standbys that watch this node, open now. */
    static final String LINKS_OWNER = "standby_watch_links{side=owner}";
    static final String WATCH_PAUSES = "standby_watch_pauses_total";
    static final String SLOT_PAUSES = "standby_slot_pauses_total";
    static final String WATCH_TAKEOVERS = "standby_watch_takeovers_total";
    static final String ENDS_OWNER = "standby_watch_link_ends_total{side=owner}";
    static final String ENDS_STANDBY = "standby_watch_link_ends_total{side=standby}";
    static final String REFUSED = "standby_watch_refused_total";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? (\\S+)$", Pattern.MULTILINE);
    private static final Pattern SIDE = Pattern.compile("(?:^|,)side=\"([^\"]*)\"");

    NodeScrape {
        values = Map.copyOf(values);
    }

    /** The meters of the node on {@code port}, or null if it does not answer within two seconds. */
    static NodeScrape of(int port) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(2)).build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? parse(System.currentTimeMillis(), response.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The {@code standby_watch_*} and {@code standby_slot_pauses_total} series, summed by name and side. */
    static NodeScrape parse(long atMillis, String text) {
        Map<String, Double> values = new HashMap<>();
        Matcher m = LINE.matcher(text);
        while (m.find()) {
            String name = m.group(1);
            if (!name.startsWith("standby_watch_") && !name.equals(SLOT_PAUSES)) {
                continue;
            }
            Matcher side = SIDE.matcher(m.group(3) == null ? "" : m.group(3));
            String key = side.find() ? name + "{side=" + side.group(1) + "}" : name;
            try {
                values.merge(key, Double.parseDouble(m.group(4)), Double::sum);
            } catch (NumberFormatException ignored) {
                // not a number: not one of ours
            }
        }
        return new NodeScrape(atMillis, values);
    }

    long get(String key) {
        return Math.round(values.getOrDefault(key, 0.0));
    }
}
