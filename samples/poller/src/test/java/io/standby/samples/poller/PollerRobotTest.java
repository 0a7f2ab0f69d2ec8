package io.standby.samples.poller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The poller against a real HTTP server on 127.0.0.1. The robot's clock is the test context's, which its sleeps move:
 * request times are exact, and no test waits for real time to pass.
 */
class PollerRobotTest {

    private static final String ETAG = "\"v1\"";
    private static final String LAST_MODIFIED = "Wed, 21 Oct 2026 07:28:00 GMT";

    /** One request as the server saw it: when (ms on the robot's clock), and its headers of interest. */
    record Seen(long atMs, String ifNoneMatch, String ifModifiedSince, String userAgent) {}

    /** How the server answers the n-th request (from 1) for a path. */
    interface Answer {
        void send(HttpExchange exchange, int n) throws IOException;
    }

    private HttpServer server;
    private volatile ManualContext ctx;
    private final Map<String, List<Seen>> seen = new ConcurrentHashMap<>();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private String serve(String path, Answer answer) {
        List<Seen> requests = seen.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>());
        server.createContext(path, exchange -> {
            var headers = exchange.getRequestHeaders();
            requests.add(new Seen(
                    ctx.elapsedMs(),
                    headers.getFirst("If-None-Match"),
                    headers.getFirst("If-Modified-Since"),
                    headers.getFirst("User-Agent")));
            try (exchange) {
                answer.send(exchange, requests.size());
            }
        });
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, status == 304 || bytes.length == 0 ? -1 : bytes.length);
        if (status != 304 && bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
    }

    /** 200 with validators, or 304 to a request that has them. */
    private static void page(HttpExchange exchange, int n) throws IOException {
        exchange.getResponseHeaders().add("ETag", ETAG);
        exchange.getResponseHeaders().add("Last-Modified", LAST_MODIFIED);
        send(exchange, ETAG.equals(exchange.getRequestHeaders().getFirst("If-None-Match")) ? 304 : 200, "hello");
    }

    private void run(Document config) throws InterruptedException {
        new PollerRobot(PollerConfig.of(config), ctx).run(ctx);
    }

    private List<Long> times(String path) {
        return seen.get(path).stream().map(Seen::atMs).toList();
    }

    @Test
    void sendsTheValidatorsItWasGivenAndCountsA304AsUnchanged() throws Exception {
        String url = serve("/page", PollerRobotTest::page);
        ctx = new ManualContext(new Document(), new Document())
                .until(() -> seen.get("/page").size() >= 3);
        run(new Document("urls", url).append("intervalMs", 1000));

        List<Seen> requests = seen.get("/page");
        assertEquals(
                new Seen(0, null, null, "standby-poller/1"), requests.get(0), "the first request has nothing to send");
        assertEquals(new Seen(1000, ETAG, LAST_MODIFIED, "standby-poller/1"), requests.get(1));
        assertEquals(new Seen(2000, ETAG, LAST_MODIFIED, "standby-poller/1"), requests.get(2));
        assertEquals(3, ctx.checkpoints.size(), "one checkpoint per round that fetched");

        Document target = ctx.target(url);
        assertEquals(304, target.getInteger("status"));
        assertEquals(ETAG, target.getString("etag"), "a 304 keeps the validators");
        assertEquals(LAST_MODIFIED, target.getString("lastModified"));
        assertEquals(sha256("hello"), target.getString("sha256"));
        assertEquals(1L, target.getLong("changes"), "one body; the 304s changed nothing");
        assertEquals(0, target.getInteger("failures"));
        assertEquals(Date.from(ManualContext.START.plusMillis(3000)), target.getDate("nextAt"));
    }

    @Test
    void aNewOwnerGoesOnWithTheValidatorsAndScheduleInTheContext() throws Exception {
        String url = serve("/page", PollerRobotTest::page);
        // What the previous owner checkpointed: the page's validators, and its next fetch 5 s from now.
        Document before = new Target(
                        url,
                        304,
                        ETAG,
                        LAST_MODIFIED,
                        sha256("hello"),
                        0,
                        null,
                        1,
                        ManualContext.START,
                        ManualContext.START.plusMillis(5000))
                .toDocument();
        ctx = new ManualContext(new Document(), new Document("targets", List.of(before)))
                .until(() -> seen.containsKey("/page") && seen.get("/page").size() >= 1);
        run(new Document("urls", List.of(url)).append("intervalMs", 60_000));

        assertEquals(
                List.of(new Seen(5000, ETAG, LAST_MODIFIED, "standby-poller/1")),
                seen.get("/page"),
                "not before its time, and conditional from the first request on");
        assertEquals(1L, ctx.target(url).getLong("changes"));
    }

    @Test
    void errorsBackOffPerUrlWhileTheOtherUrlsKeepTheirPace() throws Exception {
        String ok = serve("/ok", (exchange, n) -> send(exchange, 200, "fine"));
        // Three errors, then answers.
        String flaky = serve("/flaky", (exchange, n) -> send(exchange, n <= 3 ? 500 : 200, "n=" + n));
        ctx = new ManualContext(new Document(), new Document())
                .until(() -> seen.get("/flaky").size() >= 5);
        run(new Document("urls", ok + "," + flaky).append("intervalMs", 1000));

        // interval × 2^failures after each error: 2 s, 4 s, 8 s; then the interval again.
        assertEquals(List.of(0L, 2000L, 6000L, 14_000L, 15_000L), times("/flaky"));
        List<Long> everySecond = java.util.stream.LongStream.rangeClosed(0, 15)
                .map(s -> s * 1000)
                .boxed()
                .toList();
        assertEquals(everySecond, times("/ok"), "the other URL kept its pace");
        Document target = ctx.target(flaky);
        assertEquals(200, target.getInteger("status"));
        assertEquals(0, target.getInteger("failures"));
        assertNull(target.getString("error"));
        assertEquals(2L, target.getLong("changes"), "two different bodies");
        assertTrue(
                ctx.checkpoints.stream()
                        .anyMatch(
                                c -> c.getList("targets", Document.class).get(1).getInteger("failures") == 3),
                "the third failure was checkpointed");
    }

    @Test
    void theBackoffIsCappedAndARetryAfterInSecondsIsHonoured() throws Exception {
        String down = serve("/down", (exchange, n) -> send(exchange, 503, ""));
        String busy = serve("/busy", (exchange, n) -> {
            exchange.getResponseHeaders().add("Retry-After", "30");
            send(exchange, 429, "slow down");
        });
        ctx = new ManualContext(new Document(), new Document())
                .until(() -> seen.get("/down").size() >= 5);
        run(new Document("urls", List.of(down, busy)).append("intervalMs", 1000).append("maxBackoffMs", 5000));

        assertEquals(List.of(0L, 2000L, 6000L, 11_000L, 16_000L), times("/down"), "2 s, 4 s, then at most 5 s");
        assertEquals(List.of(0L), times("/busy"), "asked for 30 s");
        assertEquals(
                Date.from(ManualContext.START.plusSeconds(30)), ctx.target(busy).getDate("nextAt"));
        assertEquals("HTTP 429", ctx.target(busy).getString("error"));
    }

    @Test
    void anUnreachableUrlIsAnErrorOfItsOwn() throws Exception {
        String ok = serve("/ok", (exchange, n) -> send(exchange, 200, "fine"));
        String nowhere = "http://127.0.0.1:" + closedPort() + "/";
        ctx = new ManualContext(new Document(), new Document())
                .until(() -> seen.get("/ok").size() >= 3);
        run(new Document("urls", List.of(nowhere, ok))
                .append("intervalMs", 1000)
                .append("timeoutMs", 5000));

        Document target = ctx.target(nowhere);
        assertEquals(0, target.getInteger("status"), "no answer");
        assertEquals(2, target.getInteger("failures"), "tried at 0 and 2 s");
        assertTrue(target.getString("error").contains("ConnectException"), target.getString("error"));
        assertEquals(List.of(0L, 1000L, 2000L), times("/ok"));
    }

    @Test
    void aBadConfigurationIsRefusedByName() {
        PollerRobot.Factory factory = new PollerRobot.Factory();
        assertEquals(
                "urls is empty: give at least one http(s) URL",
                assertThrows(IllegalArgumentException.class, () -> factory.validate(new Document()))
                        .getMessage());
        assertEquals(
                "url 'ftp://example.org/' is not an http(s) URL with a host",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> factory.validate(new Document("urls", "ftp://example.org/")))
                        .getMessage());
        assertEquals(
                "intervalMs 'often' is not a whole number",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> factory.validate(
                                        new Document("urls", "http://127.0.0.1/").append("intervalMs", "often")))
                        .getMessage());
        assertEquals(
                "maxBackoffMs 10 must be at least intervalMs 1000",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> factory.validate(new Document("urls", "http://127.0.0.1/")
                                        .append("intervalMs", 1000)
                                        .append("maxBackoffMs", 10)))
                        .getMessage());
        factory.validate(
                new Document("urls", "http://127.0.0.1:8080/a, https://127.0.0.1/b").append("intervalMs", "500"));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String sha256(String body) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8)));
    }
}
