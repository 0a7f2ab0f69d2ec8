package io.standby.samples.poller;

import io.standby.robot.Robot;
import io.standby.robot.RobotContext;
import io.standby.robot.RobotFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;

/**
 * {@code poller}: the crawler Standby started from. It fetches each of its {@code urls} every {@code intervalMs}, with
 * conditional requests ({@code If-None-Match} from the last {@code ETag}, {@code If-Modified-Since} from the last
 * {@code Last-Modified}), so an unchanged page costs a {@code 304} and no body. What it learned per URL
 * ({@link Target}) is its context: a node that takes the robot over sends the same validators and keeps the same
 * schedule.
 *
 * <p>Errors back off per URL: no answer (refused, timed out), a 5xx or a 429 makes the URL wait {@code intervalMs ×
 * 2^failures}, at most {@code maxBackoffMs}, and at least what a {@code Retry-After} in seconds asks; the other URLs
 * keep their pace. Any answer ends the backoff. An error never fails the robot.
 *
 * <p>It checkpoints once per round in which it fetched anything; a takeover may repeat the requests of the round that
 * was under way, which is harmless for GETs.
 */
public final class PollerRobot implements Robot {

    public static final String TYPE = "poller";
    private static final String USER_AGENT = "standby-poller/1";

    private final PollerConfig config;
    private final InstantSource time;

    /** With {@code time} the clock that schedules requests; tests pass one they move by hand. */
    PollerRobot(PollerConfig config, InstantSource time) {
        this.config = config;
        this.time = time;
    }

    @Override
    public void run(RobotContext ctx) throws InterruptedException {
        Map<String, Target> targets = restore(ctx.state());
        ctx.log()
                .info(
                        "Polling {} URL(s) every {} ms",
                        targets.size(),
                        config.interval().toMillis());
        try (HttpClient http = HttpClient.newBuilder()
                .connectTimeout(config.timeout())
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build()) {
            while (!ctx.stopRequested()) {
                boolean fetched = false;
                for (Target target : List.copyOf(targets.values())) {
                    if (!target.nextAt().isAfter(time.instant())) {
                        targets.put(target.url(), fetch(http, target));
                        fetched = true;
                    }
                }
                if (fetched) {
                    ctx.checkpoint(new Document(
                            "targets",
                            targets.values().stream().map(Target::toDocument).toList()));
                }
                Instant next = targets.values().stream()
                        .map(Target::nextAt)
                        .min(Instant::compareTo)
                        .orElseThrow();
                Duration wait = Duration.between(time.instant(), next);
                if (!ctx.sleep(wait.toMillis() < 1 ? Duration.ofMillis(1) : wait)) {
                    return;
                }
            }
        }
    }

    /** The configured URLs, each with what the context knows of it; URLs no longer configured are dropped. */
    private Map<String, Target> restore(Document state) {
        Map<String, Target> known = new LinkedHashMap<>();
        for (Document doc : state.getList("targets", Document.class, List.of())) {
            known.put(doc.getString("url"), Target.of(doc));
        }
        Map<String, Target> targets = new LinkedHashMap<>();
        Instant now = time.instant();
        for (URI url : config.urls()) {
            targets.put(url.toString(), known.getOrDefault(url.toString(), Target.fresh(url.toString(), now)));
        }
        return targets;
    }

    /** One conditional GET, and what the target knows after it. */
    private Target fetch(HttpClient http, Target target) throws InterruptedException {
        Instant sent = time.instant();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.url()))
                .timeout(config.timeout())
                .header("User-Agent", USER_AGENT)
                .GET();
        if (target.etag() != null) {
            request.header("If-None-Match", target.etag());
        }
        if (target.lastModified() != null) {
            request.header("If-Modified-Since", target.lastModified());
        }
        HttpResponse<InputStream> response;
        String sha256;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            sha256 = response.statusCode() == 200 ? sha256(response.body()) : drain(response.body(), target.sha256());
        } catch (IOException e) {
            return failed(target, sent, 0, e.toString(), Optional.empty());
        }
        int status = response.statusCode();
        if (status >= 500 || status == 429) {
            return failed(target, sent, status, "HTTP " + status, retryAfter(response));
        }
        String etag = response.headers().firstValue("ETag").orElse(status == 304 ? target.etag() : null);
        String lastModified =
                response.headers().firstValue("Last-Modified").orElse(status == 304 ? target.lastModified() : null);
        long changes = target.changes() + (status == 200 && !sha256.equals(target.sha256()) ? 1 : 0);
        return new Target(
                target.url(), status, etag, lastModified, sha256, 0, null, changes, sent, sent.plus(config.interval()));
    }

    private Target failed(Target target, Instant sent, int status, String error, Optional<Duration> retryAfter) {
        int failures = target.failures() + 1;
        Duration backoff = config.interval().multipliedBy(1L << Math.min(failures, 30));
        if (backoff.compareTo(config.maxBackoff()) > 0) {
            backoff = config.maxBackoff();
        }
        if (retryAfter.isPresent() && retryAfter.get().compareTo(backoff) > 0) {
            backoff = retryAfter.get();
        }
        return new Target(
                target.url(),
                status,
                target.etag(),
                target.lastModified(),
                target.sha256(),
                failures,
                error,
                target.changes(),
                sent,
                sent.plus(backoff));
    }

    /** {@code Retry-After} in seconds; the HTTP-date form is ignored (the backoff applies). */
    private static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers()
                .firstValue("Retry-After")
                .filter(v -> v.strip().matches("\\d{1,9}"))
                .map(v -> Duration.ofSeconds(Long.parseLong(v.strip())));
    }

    private static String sha256(InputStream body) throws IOException {
        try (body) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = body.read(buffer)) >= 0) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Reads and drops a body that is not the page (an error page, an empty 304), keeping {@code sha256}. */
    private static String drain(InputStream body, String sha256) throws IOException {
        try (body) {
            body.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return sha256;
    }

    /** Registered in META-INF/services. */
    public static final class Factory implements RobotFactory {

        @Override
        public String type() {
            return TYPE;
        }

        @Override
        public void validate(Document config) {
            PollerConfig.of(config);
        }

        @Override
        public Robot create(Document config) {
            return new PollerRobot(PollerConfig.of(config), InstantSource.system());
        }
    }
}
