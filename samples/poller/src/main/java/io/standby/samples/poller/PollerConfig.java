package io.standby.samples.poller;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * A poller's configuration, checked when it is made ({@code standby robot add} refuses a bad one).
 *
 * @param urls what to fetch: config {@code urls}, a list of http(s) URLs or one string of them separated by commas (as
 *     {@code --config urls=a,b} gives it)
 * @param interval how often each URL is fetched while it answers (config {@code intervalMs}, default 60 s)
 * @param timeout for connecting and for the whole response (config {@code timeoutMs}, default 10 s)
 * @param maxBackoff the longest wait after errors (config {@code maxBackoffMs}, default 10 min)
 */
public record PollerConfig(List<URI> urls, Duration interval, Duration timeout, Duration maxBackoff) {

    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofMinutes(10);

    public PollerConfig {
        urls = List.copyOf(urls);
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("urls is empty: give at least one http(s) URL");
        }
        if (urls.stream().distinct().count() != urls.size()) {
            throw new IllegalArgumentException("urls has a URL twice");
        }
        if (interval.toMillis() < 1 || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("intervalMs and timeoutMs must be at least 1");
        }
        if (maxBackoff.compareTo(interval) < 0) {
            throw new IllegalArgumentException(
                    "maxBackoffMs " + maxBackoff.toMillis() + " must be at least intervalMs " + interval.toMillis());
        }
    }

    public static PollerConfig of(Document config) {
        return new PollerConfig(
                urls(config.get("urls")),
                millis(config, "intervalMs", DEFAULT_INTERVAL),
                millis(config, "timeoutMs", DEFAULT_TIMEOUT),
                millis(config, "maxBackoffMs", DEFAULT_MAX_BACKOFF));
    }

    private static List<URI> urls(Object value) {
        List<String> texts = new ArrayList<>();
        if (value instanceof String text) {
            for (String part : text.split(",")) {
                if (!part.isBlank()) {
                    texts.add(part.strip());
                }
            }
        } else if (value instanceof List<?> list) {
            list.forEach(item -> texts.add(String.valueOf(item)));
        } else if (value != null) {
            throw new IllegalArgumentException("urls must be a list or a comma-separated string, got " + value);
        }
        List<URI> urls = new ArrayList<>();
        for (String text : texts) {
            try {
                URI uri = new URI(text);
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    throw new IllegalArgumentException("url '" + text + "' is not an http(s) URL with a host");
                }
                urls.add(uri);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("url '" + text + "' is malformed: " + e.getReason());
            }
        }
        return urls;
    }

    private static Duration millis(Document config, String key, Duration fallback) {
        Object value = config.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Duration.ofMillis(
                    value instanceof Integer || value instanceof Long
                            ? ((Number) value).longValue()
                            : Long.parseLong(value.toString()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " '" + value + "' is not a whole number");
        }
    }
}
