package io.standby.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.standby.slot.Lease;
import io.standby.slot.NodeConfig;

import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The node's HTTP endpoint on its own ip:port. Binding it is also the proof that no other live process
 * on this machine has this node's identity.
 */
final class NodeHttp implements AutoCloseable {

    private final HttpServer server;

    private NodeHttp(HttpServer server) {
        this.server = server;
    }

    /**
     * Binds ip:port.
     *
     * @throws IllegalStateException with a one-line message if the address is taken or not on this machine
     */
    static NodeHttp bind(String ip, int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(ip, port), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            return new NodeHttp(server);
        } catch (BindException e) {
            throw new IllegalStateException("cannot bind " + ip + ":" + port + ": " + e.getMessage()
                    + " (another node with this identity, or another program, holds it; "
                    + "or the address is not on this machine)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind " + ip + ":" + port + ": " + e.getMessage());
        }
    }

    /**
     * Serves {@code /health}: the node's identity, the slots it holds, and the robots running under each,
     * as JSON.
     */
    NodeHttp serve(NodeConfig config, Supplier<List<Lease>> leases, Supplier<Map<String, List<String>>> robots) {
        server.createContext("/health", exchange -> {
            String slots = leases.get().stream()
                    .map(l -> "{\"slot\":" + Json.quote(l.slotId()) + ",\"epoch\":" + l.epoch() + "}")
                    .collect(Collectors.joining(","));
            String body = "{\"status\":\"UP\",\"node\":\"" + config.node() + "\",\"instance\":\"" + config.instance()
                    + "\",\"maxSlots\":" + config.maxSlots() + ",\"slots\":[" + slots + "],\"robots\":"
                    + Json.compact(robots.get()) + "}";
            respond(exchange, 200, body);
        });
        server.createContext("/", exchange -> respond(exchange, 404, "{\"error\":\"not found\"}"));
        server.start();
        return this;
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
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
