package io.standby.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's HTTP listener on its own ip:port. Binding it is the proof that no other live process on this machine has
 * this node's identity, so the node binds it before it joins and holds it until it is closed, whatever it serves. The
 * node serves {@code /health}; a {@link NodeExtension} adds paths with {@link #route} once the node has started. Every
 * path is exact; any other is a 404, and a handler that throws is a 500.
 */
public final class NodeEndpoint {

    private static final Logger log = LoggerFactory.getLogger(NodeEndpoint.class);
    private static final JsonWriterSettings JSON =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    /** What a path answers: a status, a content type and the body. */
    public record Response(int status, String contentType, byte[] body) {

        /** A JSON document, in MongoDB's relaxed extended JSON. */
        public static Response json(int status, Document body) {
            return new Response(status, "application/json", body.toJson(JSON).getBytes(StandardCharsets.UTF_8));
        }

        /** Text of this content type, status 200. */
        public static Response text(String contentType, String body) {
            return new Response(200, contentType, body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final HttpServer server;
    private final Map<String, Supplier<Response>> routes = new ConcurrentHashMap<>();

    private NodeEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * Binds ip:port and starts serving (404 for every path until routes are added).
     *
     * @throws IllegalStateException with a one-line message if the address is taken or not on this machine
     */
    static NodeEndpoint bind(String ip, int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(ip, port), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            NodeEndpoint endpoint = new NodeEndpoint(server);
            server.createContext("/", endpoint::answer);
            server.start();
            return endpoint;
        } catch (BindException e) {
            throw new IllegalStateException("cannot bind " + ip + ":" + port + ": " + e.getMessage()
                    + " (another node with this identity, or another program, holds it; "
                    + "or the address is not on this machine)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind " + ip + ":" + port + ": " + e.getMessage());
        }
    }

    /** Serves exactly {@code path} with the JSON document {@code body} gives, status 200. */
    public void json(String path, Supplier<Document> body) {
        route(path, () -> Response.json(200, body.get()));
    }

    /**
     * Serves exactly {@code path} (a longer path under it is a 404) with what {@code response} gives, for GET and HEAD;
     * {@code response} runs on a virtual thread per request.
     *
     * @throws IllegalStateException if the path is served already
     */
    public void route(String path, Supplier<Response> response) {
        if (routes.putIfAbsent(path, response) != null) {
            throw new IllegalStateException("the node's endpoint serves " + path + " already");
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        Supplier<Response> route = routes.get(path);
        Response answer;
        try {
            answer = route == null ? notFound() : route.get();
        } catch (RuntimeException e) {
            log.warn("HTTP {} failed: {}", path, e.toString());
            answer = Response.json(500, new Document("error", e.toString()));
        }
        respond(exchange, answer);
    }

    /** A 404 in the endpoint's own words. */
    public static Response notFound() {
        return Response.json(404, new Document("error", "not found"));
    }

    private static void respond(HttpExchange exchange, Response response) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", response.contentType());
            // Every answer describes this moment: a cached copy would hide a change of owner.
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(response.status(), head ? -1 : response.body().length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(response.body());
                }
            }
        } catch (IOException e) {
            // The client went away; nothing to tell it.
            log.debug("HTTP answer to {} not sent: {}", exchange.getRemoteAddress(), e.toString());
        }
    }

    /** Stops listening: the address refuses connects from now on. */
    void close() {
        server.stop(0);
    }

    /**
     * Stops listening at once, as {@link #close()} does, but lets the answers under way finish first, for up to a
     * second: the one that asked for the close among them.
     */
    void closeAfterAnswers() {
        server.stop(1);
    }
}
