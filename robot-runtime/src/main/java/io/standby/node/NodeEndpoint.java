package io.standby.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The node's HTTP endpoint on its own ip:port. Binding it is also the proof that no other live process
 * on this machine has this node's identity. Serves {@code /health} and whatever the node adds, and the
 * dashboard's files at {@code /}; any other path is a 404.
 */
final class NodeEndpoint implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NodeEndpoint.class);
    private static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
    /** The dashboard's files, from the jar: a path of the endpoint, then the class-path resource and its type. */
    private static final Map<String, String[]> DASHBOARD = Map.of(
            "/", new String[]{"dashboard/index.html", "text/html; charset=utf-8"},
            "/dashboard.css", new String[]{"dashboard/dashboard.css", "text/css; charset=utf-8"},
            "/dashboard.js", new String[]{"dashboard/dashboard.js", "text/javascript; charset=utf-8"});

    /** What a path answers: a status, a content type and the body. */
    record Response(int status, String contentType, byte[] body) {

        static Response json(int status, Document body) {
            return new Response(status, "application/json", body.toJson(JSON).getBytes(StandardCharsets.UTF_8));
        }

        static Response text(String contentType, String body) {
            return new Response(200, contentType, body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final HttpServer server;

    private NodeEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * Binds ip:port and starts serving.
     *
     * @throws IllegalStateException with a one-line message if the address is taken or not on this machine
     */
    static NodeEndpoint bind(String ip, int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(ip, port), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", exchange -> respond(exchange, dashboard(exchange.getRequestURI().getPath())));
            server.start();
            return new NodeEndpoint(server);
        } catch (BindException e) {
            throw new IllegalStateException("cannot bind " + ip + ":" + port + ": " + e.getMessage()
                    + " (another node with this identity, or another program, holds it; "
                    + "or the address is not on this machine)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind " + ip + ":" + port + ": " + e.getMessage());
        }
    }

    /** Serves {@code path} with the JSON document {@code body} gives, status 200. */
    void json(String path, Supplier<Document> body) {
        route(path, () -> Response.json(200, body.get()));
    }

    /** Serves exactly {@code path} (a longer path under it is a 404) with what {@code response} gives. */
    void route(String path, Supplier<Response> response) {
        server.createContext(path, exchange -> {
            Response answer;
            try {
                answer = exchange.getRequestURI().getPath().equals(path) ? response.get() : notFound();
            } catch (RuntimeException e) {
                log.warn("HTTP {} failed: {}", path, e.toString());
                answer = Response.json(500, new Document("error", e.toString()));
            }
            respond(exchange, answer);
        });
    }

    private static Response dashboard(String path) throws IOException {
        String[] file = DASHBOARD.get(path);
        if (file == null) {
            return notFound();
        }
        try (InputStream in = NodeEndpoint.class.getResourceAsStream(file[0])) {
            return in == null ? notFound() : new Response(200, file[1], in.readAllBytes());
        }
    }

    private static Response notFound() {
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

    @Override
    public void close() {
        server.stop(0);
    }
}
