package io.standby.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The node's HTTP endpoint on its own ip:port. Binding it is also the proof that no other live process
 * on this machine has this node's identity. Serves {@code /health}; more can be added before or after
 * the node starts.
 */
final class NodeEndpoint implements AutoCloseable {

    private static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

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
            server.createContext("/", exchange -> respond(exchange, 404, new Document("error", "not found")));
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
        handle(path, exchange -> respond(exchange, 200, body.get()));
    }

    void handle(String path, HttpHandler handler) {
        server.createContext(path, handler);
    }

    static void respond(HttpExchange exchange, int status, Document body) throws IOException {
        byte[] bytes = body.toJson(JSON).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
